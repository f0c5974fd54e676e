// Quiet by default: lines that are not about a command's outcome ("the login check does not
// apply" after a local build, "pruned N record(s)" in status, "unverified" on every steer)
// appear only with --verbose; `status --watch` says a warning once, not in every frame.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { COMMITTING_AGENT, laneSession, remoteWithItems } from '../harness/lanes.js';
import { ABCD_BIN, makeSession } from '../harness/session.js';

afterAll(cleanupTemp);

describe('quiet by default', () => {
  it('a local build, a pruning status and a steer say their outcome only; --verbose adds the rest', async () => {
    const remote = await remoteWithItems([{ slug: 'one' }, { slug: 'three' }]);
    const s = await laneSession(remote, 'quiet');
    const d = await s.abcd(['build', 'one', '--agent', COMMITTING_AGENT], { timeoutMs: 120_000 });
    expect(d.code, d.stdout + d.stderr).toBe(0);
    expect(d.stdout + d.stderr).not.toMatch(/does not apply/);

    expect((await s.abcd(['reserve', 'gone'])).code).toBe(0);
    expect((await s.abcd(['release', 'gone'])).code).toBe(0);
    const st = await s.abcd(['status']);
    expect(st.code, st.stderr).toBe(0);
    expect(st.stdout).not.toMatch(/pruned/);
    expect((await s.abcd(['status', '--json'])).json.pruned).toBe(0); // the first read pruned it
    expect((await s.abcd(['reserve', 'gone2'])).code).toBe(0);
    expect((await s.abcd(['release', 'gone2'])).code).toBe(0);
    expect((await s.abcd(['status', '--verbose'])).stdout).toMatch(/pruned 1 released or expired record\(s\)/);

    // A steer to a lane at work, on a remote without an allowed-signers list: every steer is
    // unverified, which status says once; the steer's own answer says it with --verbose only.
    const lane = execa(process.execPath, [ABCD_BIN, 'build', 'three', '--verbose', '--agent', `sleep 5; ${COMMITTING_AGENT}`], {
      cwd: s.dir,
      env: s.env,
      extendEnv: false,
      reject: false,
    });
    const asker = await makeSession(remote.url, 'asker', { person: 'quiet@example.com' });
    const end = Date.now() + 60_000;
    while (Date.now() < end && !(await asker.abcd(['status', '--json'])).json.running?.some((r: { item: string }) => r.item === 'three'))
      await new Promise((r) => setTimeout(r, 200));
    const steer = await asker.abcd(['steer', 'three', 'use tabs']);
    expect(steer.code, steer.stderr).toBe(0);
    expect(steer.stdout).toMatch(/gets it on its next poll as an amendment$/m);
    const loud = await asker.abcd(['steer', 'three', 'use spaces', '--verbose']);
    expect(loud.code, loud.stderr).toBe(0);
    expect(loud.stdout).toMatch(/as an amendment \(unverified: requests are unprotected/);
    // Status says it once, as a warning, not on every steer's row.
    const rows = (await asker.abcd(['status'])).stdout;
    expect(rows).toMatch(/^Steer requests$/m);
    expect(rows).toMatch(/requests are unprotected/);
    expect(rows).not.toMatch(/\(unverified\)/);
    // --verbose: how the login check let the lane through, too.
    expect(String((await lane).stdout)).toMatch(/the login check does not apply/);
  }, 180_000);

  it('status --watch on a pipe says the unprotected warning once, however many frames it prints', async () => {
    const remote = await remoteWithItems([{ slug: 'a' }]);
    const s = await makeSession(remote.url, 'watcher');
    const other = await makeSession(remote.url, 'other');
    const watch = execa(process.execPath, [ABCD_BIN, 'status', '--watch', '500ms'], {
      cwd: s.dir,
      env: s.env,
      extendEnv: false,
      reject: false,
    });
    let out = '';
    watch.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    const frames = () => out.split('abcd status: ').length - 1;
    const until = async (ok: () => boolean) => {
      const end = Date.now() + 30_000;
      while (!ok() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    };
    await until(() => frames() >= 1);
    // Each claim changes what the records say: another frame.
    for (const item of ['x1', 'x2']) {
      expect((await other.abcd(['reserve', item])).code).toBe(0);
      const seen = frames();
      await until(() => frames() > seen);
    }
    watch.kill('SIGINT');
    await watch;
    expect(frames(), out).toBeGreaterThanOrEqual(3);
    expect(out.match(/settings are unprotected/g), out).toHaveLength(1);
  }, 120_000);
});
