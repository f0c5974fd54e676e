// Silent foot-guns: reserving landed work, landing an empty branch,
// and a cap refusal that tells an agent to change the person's settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv } from '../harness/git-env.js';
import type { BareRemote } from '../harness/remote.js';
import { makeSession, twoSessions, type Json, type Session } from '../harness/session.js';

const CLAIM = 'refs/heads/abcd/claims/local/item/';

async function claimOnRemote(remote: BareRemote, item: string): Promise<Json> {
  return JSON.parse(await git(remote.dir, ['show', `${CLAIM}${item}:record.json`], isolatedEnv(remote.dir)));
}

describe('foot-guns', () => {
  let remote: BareRemote, a: Session, b: Session;
  beforeAll(async () => ({ remote, a, b } = await twoSessions()));
  afterAll(cleanupTemp);

  it('reserve of a landed item refuses (exit 3, landed) naming when and the commit; --reopen reopens; release keeps it done', async () => {
    expect((await a.abcd(['reserve', 'shipped', '--json'])).json).toMatchObject({ ok: true, state: 'held', reopened: false });
    await a.git(['checkout', '-q', '-b', 'work/shipped']);
    await a.commit('shipped.txt', 'done\n');
    const landed = await a.abcd(['land', 'shipped', '--json']);
    expect(landed.code, landed.stderr).toBe(0);

    const again = await b.abcd(['reserve', 'shipped', '--json']);
    expect(again.code).toBe(3);
    expect(again.json.refusal).toMatchObject({
      code: 'landed',
      exit: 3,
      data: { item: 'shipped', state: 'done', commit: landed.json.tip, main: 'main', landedAt: expect.stringMatching(/^\d{4}-.*Z$/) },
    });
    expect(again.json.refusal.message).toContain('--reopen');
    expect((await claimOnRemote(remote, 'shipped')).state).toBe('done');

    // The lander releasing afterwards gives up nothing and erases nothing.
    const rel = await a.abcd(['release', 'shipped', '--json']);
    expect(rel.code, rel.stderr).toBe(0);
    expect(rel.json).toMatchObject({ ok: true, state: 'done', written: false });
    expect((await claimOnRemote(remote, 'shipped')).state).toBe('done');

    const reopened = await b.abcd(['reserve', 'shipped', '--reopen', '--json']);
    expect(reopened.json).toMatchObject({ ok: true, state: 'held', reopened: true });
    // Released again without landing anything new, it is still landed work.
    const rel2 = await b.abcd(['release', 'shipped', '--json']);
    expect(rel2.json).toMatchObject({ ok: true, state: 'done', written: true });
    const after = await claimOnRemote(remote, 'shipped');
    expect(after).toMatchObject({ state: 'done', landed: { tip: landed.json.tip } });
  });

  it("land of a branch with no commits beyond main refuses, naming the branch and main's tip; nothing enqueued", async () => {
    await a.abcd(['reserve', 'empty']);
    await a.git(['fetch', '-q', 'origin']);
    await a.git(['checkout', '-q', '-b', 'work/empty', 'origin/main']);
    const mainTip = (await remote.refs()).get('refs/heads/main');
    const r = await a.abcd(['land', 'empty', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.refusal).toMatchObject({ code: 'nothing-to-land', data: { branch: 'work/empty', main: 'main', mainTip } });
    const refs = await remote.refs();
    expect(refs.get('refs/heads/main')).toBe(mainTip);
    expect([...refs.keys()].filter((k) => k.includes('/queue/'))).toEqual([]);
    expect((await claimOnRemote(remote, 'empty')).state).toBe('held');
    const text = await a.abcd(['land', 'empty']);
    expect(text.stderr).toContain('work/empty has no commits beyond main');
    expect(text.stderr).toContain(mainTip!.slice(0, 12));
  });

  it('the cap refusal says to ask the person, never to raise the cap', async () => {
    const c = await makeSession(remote.url, 'carol');
    for (const i of [1, 2, 3, 4, 5]) expect((await c.abcd(['reserve', `cap-${i}`])).code).toBe(0);
    const r = await c.abcd(['reserve', 'cap-6', '--json']);
    expect(r.json.refusal).toMatchObject({ code: 'cap-reached', exit: 3 });
    expect(r.json.refusal.message).toMatch(/ask the person/);
    expect(r.json.refusal.message).not.toMatch(/raise|abcd settings/);
  });
});
