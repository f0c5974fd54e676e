import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from './harness/git-env.js';
import { makeRemote, type BareRemote } from './harness/remote.js';
import { makeSession, type Session } from './harness/session.js';

describe('reserve', () => {
  let remote: BareRemote;
  let a: Session;
  let b: Session;
  beforeAll(async () => {
    remote = await makeRemote();
    [a, b] = await Promise.all([makeSession(remote.url, 'alice'), makeSession(remote.url, 'bob')]);
  });
  afterAll(cleanupTemp);

  it('takes a free item and writes the claim on the remote', async () => {
    const r = await a.abcd(['reserve', 'fix-login', '--json', '--note', 'login bug']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ ok: true, item: 'fix-login', gen: 0, holder: expect.stringMatching(/^alice@example.com\/.+\/alice$/) });
    const refs = await remote.refs();
    expect(refs.get('refs/heads/abcd/claims/local/item/fix-login')).toBe(r.json.claimTip);
  });

  it('refuses a held item with exit 3 naming the holder', async () => {
    const r = await b.abcd(['reserve', 'fix-login', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.refusal).toMatchObject({ code: 'held', exit: 3, data: { item: 'fix-login', holder: expect.stringContaining('alice') } });
  });
});
