// `abcd push` never moves main, a record branch or another claim's
// branch, and only fast-forwards a work branch unless this session's claim pushed its head.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';

const CLAIM = (id: string) => `refs/heads/abcd/claims/local/item/${id}`;

/** A fresh remote (each test owns one) with two sessions. */
async function setup(): Promise<{ remote: BareRemote; a: Session; b: Session }> {
  const remote = await makeRemote();
  const [a, b] = await Promise.all([makeSession(remote.url, 'alice'), makeSession(remote.url, 'bob')]);
  return { remote, a, b };
}

async function ok(s: Session, args: string[]) {
  const r = await s.abcd([...args, '--json']);
  expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  return r.json;
}

describe('push rules', () => {
  afterAll(cleanupTemp);

  it('refuses to push the main branch: a commit on main under a claim leaves the remote as it was', async () => {
    const { remote, a } = await setup();
    await ok(a, ['reserve', 'on-main']);
    await a.commit('main.txt', 'straight onto main\n');
    const before = await remote.refs();
    for (const args of [
      ['push', 'on-main'],
      ['push', 'on-main', 'main'],
    ]) {
      const r = await a.abcd([...args, '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(r.json.refusal).toMatchObject({ code: 'branch-refused', data: { item: 'on-main', branch: 'main', reason: 'main' } });
      expect(r.json.refusal.message).toMatch(/abcd land/);
      expect(await remote.refs()).toEqual(before);
    }
  });

  it('refuses main before and after a history rewrite: no push ever leases main on a recorded head', async () => {
    const { remote, a } = await setup();
    await ok(a, ['reserve', 'rewrite-main']);
    const original = (await remote.refs()).get('refs/heads/main');
    await a.commit('one.txt', 'one\n');
    const first = await a.abcd(['push', 'rewrite-main', '--json']);
    await a.git(['reset', '-q', '--hard', 'HEAD~1']);
    await a.commit('two.txt', 'a rewritten history\n');
    const second = await a.abcd(['push', 'rewrite-main', '--json']);
    for (const r of [first, second]) {
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(r.json.refusal).toMatchObject({ code: 'branch-refused', data: { reason: 'main' } });
    }
    expect((await remote.refs()).get('refs/heads/main')).toBe(original);
  });

  it('refuses a branch under abcd/, naming the record namespace', async () => {
    const { remote, a } = await setup();
    await ok(a, ['reserve', 'sneaky']);
    await a.git(['checkout', '-q', '-b', 'abcd/claims/local/item/other']);
    await a.commit('x.txt', 'x\n');
    const before = await remote.refs();
    const r = await a.abcd(['push', 'sneaky', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.refusal).toMatchObject({
      code: 'branch-refused',
      data: { branch: 'abcd/claims/local/item/other', reason: 'record-namespace' },
    });
    expect(await remote.refs()).toEqual(before);
  });

  it('refuses a branch another live claim recorded, naming that claim and its holder', async () => {
    const { remote, a, b } = await setup();
    await ok(a, ['reserve', 'first']);
    await a.git(['checkout', '-q', '-b', 'work/shared']);
    const head = await a.commit('a.txt', 'alice\n');
    await ok(a, ['push', 'first']);
    await ok(b, ['reserve', 'second']);
    await b.git(['fetch', '-q', 'origin', 'work/shared']);
    await b.git(['checkout', '-q', '-b', 'work/shared', 'FETCH_HEAD']);
    await b.commit('b.txt', 'bob on top\n');
    const before = await remote.refs();
    const r = await b.abcd(['push', 'second', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal).toMatchObject({
      code: 'branch-refused',
      data: {
        item: 'second',
        branch: 'work/shared',
        reason: 'claimed',
        claimedBy: { item: 'first', holder: expect.stringContaining('alice') },
      },
    });
    expect((await remote.refs()).get('refs/heads/work/shared')).toBe(head);
    expect(await remote.refs()).toEqual(before);
  });

  it('land refuses a branch another live claim recorded too (a landing would delete it)', async () => {
    const { remote, a, b } = await setup();
    await ok(a, ['reserve', 'owner']);
    await a.git(['checkout', '-q', '-b', 'work/owned']);
    await a.commit('a.txt', 'alice\n');
    await ok(a, ['push', 'owner']);
    await ok(b, ['reserve', 'lander']);
    await b.git(['fetch', '-q', 'origin', 'work/owned']);
    await b.git(['checkout', '-q', '-b', 'work/owned', 'FETCH_HEAD']);
    await b.commit('b.txt', 'bob on top\n');
    const before = await remote.refs();
    const r = await b.abcd(['land', 'lander', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal).toMatchObject({
      code: 'branch-refused',
      data: { branch: 'work/owned', reason: 'claimed', claimedBy: { item: 'owner' } },
    });
    expect(await remote.refs()).toEqual(before);
  });

  it('only fast-forwards a branch this claim did not push: a rewrite of someone else’s branch is refused', async () => {
    const { remote, a, b } = await setup();
    await ok(a, ['reserve', 'left']);
    await a.git(['checkout', '-q', '-b', 'work/left']);
    const head = await a.commit('a.txt', 'alice\n');
    await ok(a, ['push', 'left']);
    await ok(a, ['release', 'left']);
    await ok(b, ['reserve', 'taker']);
    await b.git(['fetch', '-q', 'origin', 'work/left']);
    await b.git(['checkout', '-q', '-b', 'work/left', 'FETCH_HEAD']);
    await b.git(['commit', '-q', '--amend', '-m', 'rewritten by bob']);
    const before = await remote.refs();
    const r = await b.abcd(['push', 'taker', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal).toMatchObject({ code: 'branch-refused', data: { branch: 'work/left', reason: 'not-fast-forward' } });
    expect((await remote.refs()).get('refs/heads/work/left')).toBe(head);
    expect(await remote.refs()).toEqual(before);
    // Building on top of it is a fast-forward, and allowed.
    const onTop = await b.git(['reset', '-q', '--hard', head]).then(() => b.commit('b.txt', 'bob\n'));
    expect((await ok(b, ['push', 'taker'])).head).toBe(onTop);
    expect((await remote.refs()).get('refs/heads/work/left')).toBe(onTop);
  });

  it('replaces the head this session pushed under its own claim after a rebase (leased on that head)', async () => {
    const { remote, a } = await setup();
    await ok(a, ['reserve', 'mine']);
    await a.git(['checkout', '-q', '-b', 'work/mine']);
    await a.commit('m.txt', 'one\n');
    await ok(a, ['push', 'mine']);
    await a.git(['commit', '-q', '--amend', '-m', 'reworded']);
    const rewritten = await a.git(['rev-parse', 'HEAD']);
    const r = await ok(a, ['push', 'mine']);
    expect(r.head).toBe(rewritten);
    const refs = await remote.refs();
    expect(refs.get('refs/heads/work/mine')).toBe(rewritten);
    expect(refs.get(CLAIM('mine'))).toBe(r.claimTip);
  });

  it('refuses the rewrite when someone else moved the branch after this session pushed it', async () => {
    const { remote, a, b } = await setup();
    await ok(a, ['reserve', 'moved']);
    await a.git(['checkout', '-q', '-b', 'work/moved']);
    await a.commit('m.txt', 'one\n');
    await ok(a, ['push', 'moved']);
    await b.git(['fetch', '-q', 'origin', 'work/moved']);
    await b.git(['checkout', '-q', '-b', 'work/moved', 'FETCH_HEAD']);
    const theirs = await b.commit('theirs.txt', 'pushed with plain git\n');
    await b.git(['push', '-q', 'origin', 'work/moved']);
    await a.git(['commit', '-q', '--amend', '-m', 'reworded']);
    const r = await a.abcd(['push', 'moved', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal).toMatchObject({ code: 'branch-refused', data: { branch: 'work/moved', reason: 'moved' } });
    expect((await remote.refs()).get('refs/heads/work/moved')).toBe(theirs);
  });
});
