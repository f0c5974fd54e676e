// The network deadline belongs to one act of one lane: two lanes of one drain share a clone and
// a Repo, and one lane's land (its --wait, the short budget it gives itself to leave the queue)
// must not bound the other lane's reads.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';
import { laneRun, COMMITTING_AGENT, laneSession, mainWorkSubjects, remoteWithItems } from '../harness/lanes.js';

// The land check of both items, coordinated through files so the race is the same on any
// machine: b's speculative test (on top of a) starts, then a's check fails; b's check ends
// 5 s after that, past the 3 s a's land gives itself to leave the queue.
const CHECK = `set -e
case "$ABCD_LAND_ITEM" in
  a) until [ -e "$MARKS/b-testing" ]; do sleep 0.1; done; touch "$MARKS/a-failed"; exit 1 ;;
  b) touch "$MARKS/b-testing"; until [ -e "$MARKS/a-failed" ]; do sleep 0.1; done; sleep 5 ;;
esac
`;

describe('network deadline', () => {
  afterAll(cleanupTemp);

  it("abcd drain --lanes 2: lane a's failed land does not cut lane b's reads short; b lands", async () => {
    const marks = await tempDir('marks');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(marks, 'check.sh'), CHECK);
    const remote = await remoteWithItems([{ slug: 'a' }, { slug: 'b' }], {
      // The checks coordinate through a folder outside their worktrees: the person's opt-out of
      // the check sandbox, which a lane takes only when attended.
      land: { checks: `sh ${join(marks, 'check.sh')}`, speculate: 2, sandbox: 'none', env: ['MARKS'] },
      // a's failing check ends its cycle: no fix turn.
      lanes: { fixChecks: 0 },
    });
    const s = await laneSession(remote, 'drainer', { MARKS: marks });
    // b's agent commits a moment after a's, so a is first in the land queue.
    const agent = `case "$ABCD_ITEM" in *:b) sleep 2 ;; esac; ${COMMITTING_AGENT}`;
    const r = await s.abcd(['drain', '--lanes', '2', '--max-cycles', '1', '--attended', '--json', '--agent', agent], {
      timeoutMs: 150_000,
    });
    // a's failing check makes the run's answer exit 3; before, b's cut-short read ended it with exit 8.
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const cycles = (laneRun(r)?.record?.cycles ?? []) as Array<{ item: string; outcome: string; code?: string; reason?: string }>;
    const byItem = Object.fromEntries(cycles.map((c) => [c.item, c]));
    expect(byItem.a, r.stdout + r.stderr).toMatchObject({ outcome: 'failed', code: 'check-failed' });
    expect(byItem.b, r.stdout + r.stderr).toMatchObject({ outcome: 'landed' });
    expect((await mainWorkSubjects(remote)).filter((x) => x.startsWith('agent: '))).toEqual(['agent: local:item:b']);
  }, 180_000);

  it("one lane's failed land does not shorten the next read of another lane of the same drain", async () => {
    const remote = await makeRemote();
    const root = await tempDir('net-deadline');
    const env = isolatedEnv(root);
    const seed = join(root, 'seed');
    await git(root, ['clone', '-q', remote.url, seed], env);
    await git(seed, ['config', 'commit.gpgsign', 'false'], env);
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(join(seed, '.abcd'));
    // Every check fails: the land ends in its undo, which leaves the queue on a budget of its own.
    await writeFile(join(seed, '.abcd/config.json'), JSON.stringify({ land: { checks: 'exit 1' } }));
    await git(seed, ['add', '.'], env);
    await git(seed, ['commit', '-q', '-m', 'a failing land check'], env);
    await git(seed, ['push', '-q', 'origin', 'main'], env);
    const s = await makeSession(remote.url, 'drainer', { env: { ABCD_MACHINE_DIR: join(root, 'machine') } });
    await s.git(['checkout', '-q', '-b', 'work/first']);
    await s.commit('first.txt', 'first\n', 'first');
    await s.git(['checkout', '-q', 'main']);

    const [{ openRepo }, { readSnapshot }, { laneRepo }, { land }, { reserve }, { systemClock }, { envConfig }, { parseItem }, refusals] =
      await Promise.all([
        import('../../src/repo/repo.js'),
        import('../../src/repo/snapshot.js'),
        import('../../src/lanes/run/lane-repo.js'),
        import('../../src/land/land.js'),
        import('../../src/claims/reserve.js'),
        import('../../src/core/deps.js'),
        import('../../src/cli/env-config.js'),
        import('../../src/records/item.js'),
        import('../../src/core/refusals.js'),
      ]);
    // The drain's clock: the test moves it on to the moment the second lane reads again.
    let later = 0;
    const clock = { now: () => systemClock.now() + later, sleep: systemClock.sleep };
    const repo = await openRepo({
      cwd: s.dir,
      env: s.env,
      config: envConfig(s.env),
      clock,
      out: { stdout() {}, stderr() {}, isTTY: false },
      remote: 'origin',
    });
    // Exactly how `abcd drain --lanes 2` makes its lanes' repos from the one it opened.
    const [one, two] = [laneRepo(repo, 'run1', 1), laneRepo(repo, 'run1', 2)];
    const item = parseItem('first');
    await reserve(one, { item, waitMs: 0 });
    const landing = land(one, { item, branch: 'work/first', waitMs: 60_000, strategy: 'rebase', keep: false }, (_label, _until, fn) =>
      fn(),
    );
    const failed = await landing.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(refusals.CheckFailed);

    // Lane two goes on working well after lane one's land ended: its read gets the network's
    // full time, not what was left of lane one's budget for leaving the queue.
    later = 10_000;
    const snap = await readSnapshot(two).catch((e: unknown) => e);
    expect(snap instanceof Error ? `${snap.constructor.name}: ${snap.message}` : 'read').toBe('read');
    // And lane one's own next read is not bounded by its finished land either.
    const again = await readSnapshot(one).catch((e: unknown) => e);
    expect(again instanceof Error ? `${again.constructor.name}: ${again.message}` : 'read').toBe('read');
    // The failed land left the queue and the item to the next cycle.
    const refs = await remote.refs();
    expect([...refs.keys()].filter((r) => r.startsWith('refs/heads/abcd/queue/'))).toEqual([]);
  }, 60_000);
});
