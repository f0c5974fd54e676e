// status --watch: one read per interval until the person stops it.
import { afterAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { ABCD_BIN, makeSession } from '../harness/session.js';
import { assertAnswerContract } from '../harness/answer-contract.js';

// A watch that printed nothing for this long is stuck, not slow.
const STUCK_MS = 60_000;

describe('status --watch', () => {
  afterAll(cleanupTemp);

  it('reads again at each interval, shows changes, and ends cleanly on SIGINT', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'una');
    const watch = execa(process.execPath, [ABCD_BIN, 'status', '--watch', '500ms', '--json'], {
      cwd: s.dir,
      env: s.env,
      extendEnv: false,
      reject: false,
    });
    const seen: Array<{ claims: Array<{ item: string }> }> = [];
    let rest = '';
    watch.stdout!.on('data', (chunk: Buffer) => {
      const parts = (rest + chunk.toString('utf8')).split('\n');
      rest = parts.pop() ?? '';
      for (const l of parts.filter(Boolean)) seen.push(JSON.parse(l));
    });
    // Step on what the watch printed, not on sleeps: node's start-up on a loaded machine is no
    // longer part of the test.
    const until = async (what: string, ok: () => boolean) => {
      const end = Date.now() + STUCK_MS;
      while (!ok()) {
        if (Date.now() > end) throw new Error(`status --watch printed no ${what} in ${STUCK_MS} ms`);
        await new Promise((res) => setTimeout(res, 50));
      }
    };
    await until('first read', () => seen.length > 0);
    expect(seen[0]!.claims).toEqual([]);
    expect((await s.abcd(['reserve', 'seen-live'])).code).toBe(0);
    const live = () => seen.findIndex((l) => l.claims.some((c) => c.item === 'seen-live'));
    await until('read showing the new claim', () => live() >= 0);
    await until('further read', () => seen.length > live() + 1);
    watch.kill('SIGINT');
    const done = await watch;
    expect(done.exitCode).toBe(0);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.at(-1)!.claims.map((c) => c.item)).toEqual(['seen-live']);
    // Every line of a watch is an answer of its own, in the shape `abcd schema status` publishes.
    for (const line of seen) assertAnswerContract(['status', '--json'], 0, line);
  });
});
