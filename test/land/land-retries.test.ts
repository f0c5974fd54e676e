// land.retries: a failing check runs again on the same tree; one that passes on a retry lands,
// with every attempt in the result and the flakiness on the claim and in status. One that
// fails every attempt refuses with each run in its data; without retries it runs once.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { remoteWithItems } from '../harness/lanes.js';
import { remoteRecord } from '../harness/steer.js';
import { makeSession, type Session } from '../harness/session.js';

// Fails the first time it runs on a tree (it leaves a mark in the worktree), passes after.
const FLAKY = 'test -f .flaky-seen || { touch .flaky-seen; echo first run fails; exit 1; }';

async function landerFor(config: unknown): Promise<{ s: Session; remote: Awaited<ReturnType<typeof remoteWithItems>> }> {
  const remote = await remoteWithItems([], config);
  const s = await makeSession(remote.url, 'lander', { env: { ABCD_GATE_SLOTS: '2' } });
  expect((await s.abcd(['reserve', 'flaky-item'])).code).toBe(0);
  await s.git(['checkout', '-q', '-b', 'work/flaky-item']);
  await s.commit('work.txt', 'work\n', 'the work');
  return { s, remote };
}

describe('land.retries', () => {
  afterAll(cleanupTemp);

  it('a check that passes on its second run lands, the retry recorded in the result, the claim and status', async () => {
    const { s, remote } = await landerFor({ land: { checks: ['true', FLAKY], retries: 1 } });
    const r = await s.abcd(['land', 'flaky-item', '--json', '--wait', '2m'], { timeoutMs: 150_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.checks.map((c: { command: string; exitCode: number; attempt: number }) => [c.command, c.exitCode, c.attempt])).toEqual([
      ['true', 0, 1],
      [FLAKY, 1, 1],
      [FLAKY, 0, 2],
    ]);
    expect(r.json.flaky).toEqual([{ check: FLAKY, attempts: 2 }]);
    const claim = await remoteRecord(remote, 'refs/heads/abcd/claims/local/item/flaky-item');
    expect(claim).toMatchObject({ state: 'done', landed: { tip: r.json.tip, flaky: [{ check: FLAKY, attempts: 2 }] } });
    expect((await remote.refs()).get('refs/heads/main')).toBe(r.json.tip);
    const st = await s.abcd(['status', '--all']);
    expect(st.stdout).toContain(`flaky-item on main at ${String(r.json.tip).slice(0, 12)}`);
    expect(st.stdout).toContain('passed only on a retry');
    const short = await s.abcd(['status']);
    expect(short.stdout).toContain('1 passed its checks only on a retry');
  }, 180_000);

  it('a check that fails every attempt refuses with each run in its data, and nothing lands', async () => {
    const { s, remote } = await landerFor({ land: { checks: 'echo always; exit 7', retries: 2 } });
    const before = (await remote.refs()).get('refs/heads/main');
    const r = await s.abcd(['land', 'flaky-item', '--json', '--wait', '2m'], { timeoutMs: 150_000 });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal).toMatchObject({ code: 'check-failed', data: { exitCode: 7, attempts: 3 } });
    expect(r.json.refusal.data.runs.map((x: { attempt: number }) => x.attempt)).toEqual([1, 2, 3]);
    expect(r.json.refusal.message).toMatch(/on each of 3 attempts/);
    expect((await remote.refs()).get('refs/heads/main')).toBe(before);
  }, 180_000);

  it('without land.retries a flaky check runs once and fails the land', async () => {
    const { s } = await landerFor({ land: { checks: FLAKY } });
    const r = await s.abcd(['land', 'flaky-item', '--json', '--wait', '2m'], { timeoutMs: 150_000 });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal).toMatchObject({ code: 'check-failed', data: { attempts: 1 } });
    expect(r.json.refusal.data.runs).toHaveLength(1);
  }, 180_000);
});
