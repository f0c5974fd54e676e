import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import type { BareRemote } from '../harness/remote.js';
import { twoSessions, type Session } from '../harness/session.js';

describe('reserve', () => {
  let remote: BareRemote, a: Session, b: Session;
  beforeAll(async () => ({ remote, a, b } = await twoSessions()));
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
