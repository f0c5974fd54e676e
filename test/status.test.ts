// status --watch: one read per interval until the person stops it.
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { cleanupTemp } from './harness/git-env.js';
import { makeRemote } from './harness/remote.js';
import { ABCD_BIN, makeSession } from './harness/session.js';

describe('status --watch', () => {
  afterAll(cleanupTemp);

  it('reads again at each interval, shows changes, and ends cleanly on SIGINT', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'una');
    const watch = execa(process.execPath, [ABCD_BIN, 'status', '--watch', '500ms', '--json'], { cwd: s.dir, env: s.env, extendEnv: false, reject: false });
    await new Promise((res) => setTimeout(res, 1200));
    expect((await s.abcd(['reserve', 'seen-live'])).code).toBe(0);
    await new Promise((res) => setTimeout(res, 1500));
    watch.kill('SIGINT');
    const done = await watch;
    expect(done.exitCode).toBe(0);
    const lines = String(done.stdout).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines[0].claims).toEqual([]);
    expect(lines.at(-1).claims.map((c: { item: string }) => c.item)).toEqual(['seen-live']);
  });
});
