// Session identity: ABCD_SESSION, else one id kept per worktree under its git dir.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession, runAbcd } from '../harness/session.js';

describe('session identity', () => {
  afterAll(cleanupTemp);

  it('keeps one id per worktree when ABCD_SESSION is unset, and shows person/host/session', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'wanda');
    const env = { ...s.env };
    delete env.ABCD_SESSION;
    const first = await runAbcd(s.dir, ['reserve', 'one', '--json'], env);
    const again = await runAbcd(s.dir, ['reserve', 'one', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.holder).toMatch(/^wanda@example\.com\/[^/]+\/s-[0-9a-f]{8}$/);
    expect(again.json).toMatchObject({ holder: first.json.holder, renewed: true });
    const wt = join(s.dir, '..', 'second-worktree');
    await s.git(['worktree', 'add', '-q', '-b', 'other', wt]);
    const other = await runAbcd(wt, ['reserve', 'one', '--json'], env);
    expect(other.code).toBe(3);
    expect(other.json.refusal.data.holder).toBe(first.json.holder);
    const mine = await runAbcd(wt, ['status', '--json'], env);
    expect(mine.json.session).not.toBe(first.json.holder);
  });

  it('refuses a hostile ABCD_SESSION as a usage error', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'xena');
    const r = await s.abcd(['status', '--json'], { env: { ABCD_SESSION: '../../etc' } });
    expect(r.code).toBe(2);
    expect(r.json.refusal.code).toBe('usage');
  });
});
