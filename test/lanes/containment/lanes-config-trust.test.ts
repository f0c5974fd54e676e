// A config on main may loosen the sandbox only in a commit the person signed, or approved with
// `abcd land --approve` (ADR 0104): a lane under any other loosening refuses to run (exit 7),
// naming the key and the commit, before it claims anything.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../../harness/git-env.js';
import { COMMITTING_AGENT, laneRun, laneSession, remoteWithItems } from '../../harness/lanes.js';
import type { BareRemote } from '../../harness/remote.js';
import type { Session } from '../../harness/session.js';
import { makeKey, useSigningKey, writeSigners } from '../../harness/signing.js';

/** Writes the config on `s`'s main and pushes it straight to the remote (anyone with push access can). */
async function pushConfig(s: Session, config: unknown, o: { sign?: boolean } = {}): Promise<string> {
  await s.git(['fetch', '-q', 'origin']);
  await s.git(['checkout', '-q', '-B', 'main', 'origin/main']);
  await mkdir(join(s.dir, '.abcd'), { recursive: true });
  await writeFile(join(s.dir, '.abcd/config.json'), JSON.stringify(config));
  await s.git(['add', '.abcd/config.json']);
  await s.git(['commit', '-q', ...(o.sign ? ['-S'] : []), '-m', 'config']);
  await s.git(['push', '-q', 'origin', 'main']);
  return s.git(['rev-parse', 'HEAD']);
}

describe('a lane runs only under a config whose loosening the person vouched for', () => {
  let remote: BareRemote;
  let laner: Session;
  let alice: Session;
  let mallory: Session;
  let shown: string;

  beforeAll(async () => {
    remote = await remoteWithItems([{ slug: 'one' }, { slug: 'two' }, { slug: 'three' }, { slug: 'four' }, { slug: 'five' }], {
      land: { checks: '' },
    });
    [laner, alice, mallory] = await Promise.all([
      laneSession(remote, 'laner'),
      laneSession(remote, 'alice'),
      laneSession(remote, 'mallory'),
    ]);
    const keys = await tempDir('keys');
    const aliceKey = await makeKey(keys, 'alice');
    await useSigningKey(alice, aliceKey.path);
    for (const s of [laner, alice]) await writeSigners(s, [`alice@example.com ${aliceKey.pub}`]);
    shown = await tempDir('shown');
  });
  afterAll(cleanupTemp);

  it('an unsigned commit that widens what agents see: the lane refuses with exit 7, naming the key and the commit', async () => {
    const commit = await pushConfig(mallory, { land: { checks: '' }, lanes: { bind: [shown] } });
    const before = await remote.refs();
    const r = await laner.abcd(['build', 'one', '--json', '--agent', COMMITTING_AGENT]);
    expect(r.code, r.stdout + r.stderr).toBe(7);
    expect(r.json.refusal).toMatchObject({ code: 'config-unsigned', data: { key: 'lanes.bind', commit, baseline: null } });
    expect(r.json.refusal.message).toContain(commit.slice(0, 12));
    // Refused before anything was claimed or pushed.
    expect(await remote.refs()).toEqual(before);
  });

  it("the person's signed commit vouches for the same config: the lane runs and lands", async () => {
    await pushConfig(alice, { land: { checks: '' }, lanes: { bind: [shown], maxFiles: 1000 } }, { sign: true });
    const r = await laner.abcd(['build', 'one', '--json', '--agent', COMMITTING_AGENT]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it('an unsigned change of the checks after it is a loosening against the signed one', async () => {
    const commit = await pushConfig(mallory, { land: { checks: 'true' }, lanes: { bind: [shown], maxFiles: 1000 } });
    const signed = (await alice.git(['rev-parse', 'HEAD'])).trim();
    const r = await laner.abcd(['build', 'two', '--json', '--agent', COMMITTING_AGENT]);
    expect(r.code, r.stdout + r.stderr).toBe(7);
    expect(r.json.refusal).toMatchObject({ code: 'config-unsigned', data: { key: 'land.checks', commit, baseline: signed } });
  });

  it('a config the person approved with --approve counts as theirs', async () => {
    // A lane's own change of the config waits for review; the person's approval lands it.
    await pushConfig(alice, { land: { checks: '' }, lanes: { bind: [shown], maxFiles: 1000 } }, { sign: true });
    const agent = `printf '{"land":{"checks":"","env":["LANG"]},"lanes":{"bind":["${shown}"]}}' > .abcd/config.json && git commit -qam "agent: env"`;
    const held = await laner.abcd(['build', 'two', '--json', '--agent', agent]);
    expect(laneRun(held)?.outcome, held.stdout + held.stderr).toBe('needs-review');
    const approved = await alice.abcd(['land', 'two', '--approve', laneRun(held).runId, '--json']);
    expect(approved.code, approved.stdout + approved.stderr).toBe(0);
    const r = await laner.abcd(['build', 'three', '--json', '--agent', COMMITTING_AGENT]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  });

  it("a drain judges main's config again before each cycle: a loosening landed meanwhile stops it", async () => {
    // five's agent (taken first: by key) waits until the test has pushed the loosening; four's cycle then never starts.
    const agent = `case "$ABCD_ITEM" in *five) i=0; while [ ! -f ${shown}/go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done;; esac\n${COMMITTING_AGENT}`;
    const drain = laner.abcd(['drain', '--lanes', '1', '--lifecycle', 'once', '--json', '--agent', agent], { timeoutMs: 90_000 });
    const claimed = async () => (await remote.refs()).has('refs/heads/abcd/claims/local/item/five');
    for (let i = 0; i < 300 && !(await claimed()); i++) await new Promise((r) => setTimeout(r, 100));
    const commit = await pushConfig(mallory, {
      land: { checks: '', env: ['LANG'] },
      lanes: { bind: [shown], env: ['AWS_SECRET_ACCESS_KEY'] },
    });
    await writeFile(join(shown, 'go'), '');
    const r = await drain;
    expect(r.code, r.stdout + r.stderr).toBe(7);
    expect(r.json.refusal).toMatchObject({ code: 'config-unsigned', data: { key: 'lanes.env', commit } });
    const cycles = (r.json.refusal.data.result?.record?.cycles ?? []) as { item: string; outcome: string }[];
    expect(cycles.map((c) => [c.item, c.outcome])).toEqual([['five', 'landed']]);
  });
});
