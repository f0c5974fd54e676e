// What the agent can take and what can land: it sees only objects the remote has (never the
// person's unpushed ones), every object of its work passes git's strict checks whether it
// committed it or left it in the worktree, and a change past the repository's limits lands
// nothing.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../../harness/git-env.js';
import { laneRun, laneSession, remoteWithItems } from '../../harness/lanes.js';
import type { BareRemote } from '../../harness/remote.js';

/** The remote's branches besides main and abcd's records: a lane branch pushed for review or landing. */
async function workBranches(remote: BareRemote): Promise<string[]> {
  return [...(await remote.refs()).keys()].filter((r) => r.startsWith('refs/heads/') && !/^refs\/heads\/(main|abcd\/)/.test(r));
}

async function mainFiles(remote: BareRemote): Promise<string> {
  return (await execa('git', ['-C', remote.dir, 'ls-tree', '-r', '--name-only', 'main'])).stdout;
}

const BAD_GITMODULES = `printf '[submodule "x"]\\n\\tpath = x\\n\\turl = --upload-pack=touch /tmp/abcd-gitmodules-pwned\\n' > .gitmodules`;

describe('lane isolation', () => {
  afterAll(cleanupTemp);

  it("an unpushed blob in the person's clone is not readable by the agent, and does not land", async () => {
    const remote = await remoteWithItems([{ slug: 'leak' }, { slug: 'again' }]);
    const s = await laneSession(remote, 'hoarder');
    const secret = `unpushed-secret-${process.pid}-${Date.now()}`;
    // Committed on a branch of the person's that was never pushed.
    await s.git(['switch', '-q', '-c', 'private']);
    await s.commit('private.txt', `${secret}\n`, 'private work');
    const blob = await s.git(['rev-parse', 'HEAD:private.txt']);
    await s.git(['switch', '-q', 'main']);
    const agent = [
      'git cat-file --batch-all-objects --batch > all.txt 2>&1',
      `git cat-file -p ${blob} > named.txt 2>&1`,
      'git add all.txt named.txt && git commit -qm "agent: look"',
    ].join('; ');
    const r = await s.abcd(['build', 'leak', '--json', '--sandbox', 'bwrap', '--agent', agent], { timeoutMs: 90_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(laneRun(r).record.cycles[0]).toMatchObject({ outcome: 'landed' });
    const all = (await execa('git', ['-C', remote.dir, 'show', 'main:all.txt'])).stdout;
    const named = (await execa('git', ['-C', remote.dir, 'show', 'main:named.txt'])).stdout;
    // The agent saw main's objects (the item file), not the person's branch.
    expect(all).toContain('Work on leak.');
    expect(all).not.toContain(secret);
    expect(named).not.toContain(secret);
    expect((await execa('git', ['-C', remote.dir, 'cat-file', '-e', blob], { reject: false })).exitCode).not.toBe(0);
    // The next cycle starts from the main the first one landed (the store takes only what main
    // gained), with another unpushed commit in the clone by then.
    await s.git(['fetch', '-q', 'origin', 'main']);
    await s.git(['switch', '-q', 'private']);
    await s.commit('later.txt', `${secret}-later\n`, 'more private work');
    await s.git(['switch', '-q', 'main']);
    const again = await s.abcd(
      [
        'build',
        'again',
        '--json',
        '--sandbox',
        'bwrap',
        '--agent',
        'git cat-file --batch-all-objects --batch > again.txt 2>&1; git add again.txt && git commit -qm again',
      ],
      { timeoutMs: 90_000 },
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const seen = (await execa('git', ['-C', remote.dir, 'show', 'main:again.txt'])).stdout;
    expect(seen).toContain('Work on again.');
    expect(seen).toContain('agent: look');
    expect(seen).not.toContain(secret);
  }, 120_000);

  it('a .gitmodules git fsck refuses fails the cycle with agent-objects-refused, committed or left uncommitted', async () => {
    const remote = await remoteWithItems([{ slug: 'left' }, { slug: 'committed' }]);
    const s = await laneSession(remote, 'strict');
    const before = await remote.refs();
    const left = await s.abcd(['build', 'left', '--json', '--agent', `echo work > work.txt; ${BAD_GITMODULES}`]);
    expect(left.code, left.stdout + left.stderr).toBe(3);
    expect(laneRun(left).record.cycles[0]).toMatchObject({ item: 'left', outcome: 'failed', code: 'agent-objects-refused' });
    expect(laneRun(left).record.cycles[0].reason).toMatch(/gitmodulesUrl/);
    const committed = await s.abcd([
      'build',
      'committed',
      '--json',
      '--agent',
      `${BAD_GITMODULES}; git add .gitmodules && git commit -qm submodule; echo more > more.txt`,
    ]);
    expect(committed.code, committed.stdout + committed.stderr).toBe(3);
    expect(laneRun(committed).record.cycles[0]).toMatchObject({ item: 'committed', outcome: 'failed', code: 'agent-objects-refused' });
    expect(laneRun(committed).record.cycles[0].reason).toMatch(/gitmodulesUrl/);
    // Nothing landed or was pushed for either, and the remote holds no object fsck refuses.
    expect((await remote.refs()).get('refs/heads/main')).toBe(before.get('refs/heads/main'));
    expect(await workBranches(remote)).toEqual([]);
    const fsck = await execa('git', ['-C', remote.dir, 'fsck', '--strict', '--no-dangling'], { reject: false });
    expect(fsck.exitCode, fsck.stdout + fsck.stderr).toBe(0);
    expect(fsck.stdout + fsck.stderr).not.toMatch(/gitmodules/i);
  }, 120_000);

  it('a change past lanes.maxChangeBytes or lanes.maxFiles fails with change-too-large naming the biggest paths; nothing is pushed', async () => {
    const remote = await remoteWithItems([{ slug: 'huge' }, { slug: 'many' }, { slug: 'fits' }], {
      lanes: { maxChangeBytes: 4000, maxFiles: 3 },
    });
    const s = await laneSession(remote, 'bounded');
    const before = await remote.refs();
    const huge = await s.abcd([
      'build',
      'huge',
      '--json',
      '--agent',
      'head -c 3000 /dev/zero > big.bin; head -c 1500 /dev/zero > medium.bin; echo small > small.txt; git add big.bin && git commit -qm big',
    ]);
    expect(huge.code, huge.stdout + huge.stderr).toBe(3);
    const h = laneRun(huge).record.cycles[0];
    expect(h).toMatchObject({ item: 'huge', outcome: 'failed', code: 'change-too-large' });
    expect(h.reason).toMatch(/4506 bytes/);
    expect(h.reason.indexOf('big.bin')).toBeGreaterThan(-1);
    expect(h.reason.indexOf('big.bin')).toBeLessThan(h.reason.indexOf('medium.bin'));
    const many = await s.abcd(['build', 'many', '--json', '--agent', 'for i in 1 2 3 4 5; do echo $i > f$i.txt; done']);
    expect(many.code, many.stdout + many.stderr).toBe(3);
    expect(laneRun(many).record.cycles[0]).toMatchObject({ item: 'many', outcome: 'failed', code: 'change-too-large' });
    expect(laneRun(many).record.cycles[0].reason).toMatch(/5 files/);
    expect((await remote.refs()).get('refs/heads/main')).toBe(before.get('refs/heads/main'));
    expect(await workBranches(remote)).toEqual([]);
    expect(await mainFiles(remote)).not.toMatch(/big\.bin|f1\.txt/);
    // Within both limits it lands.
    const fits = await s.abcd(['build', 'fits', '--json', '--agent', 'echo ok > a.txt; echo ok > b.txt']);
    expect(fits.code, fits.stdout + fits.stderr).toBe(0);
    expect(await mainFiles(remote)).toMatch(/a\.txt/);
  }, 120_000);
});
