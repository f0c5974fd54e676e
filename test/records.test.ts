// Records abcd must refuse by name without losing any other: too new, corrupt, hostile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from './harness/git-env.js';
import { makeRemote, writeRawRecord, type BareRemote } from './harness/remote.js';
import { makeSession, type Session } from './harness/session.js';

const ref = (id: string) => `refs/heads/abcd/claims/local/item/${id}`;
const claim = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    abcd: 'claim',
    v: 1,
    item: `local:item:${id}`,
    state: 'held',
    holder: { person: 'zoe@example.com', host: 'h', session: 'zoe' },
    gen: 0,
    at: Date.now(),
    ttl: 3_600_000,
    ...extra,
  });

describe('records', () => {
  let remote: BareRemote;
  let a: Session;
  beforeAll(async () => {
    remote = await makeRemote();
    a = await makeSession(remote.url, 'alice');
    expect((await a.abcd(['reserve', 'healthy'])).code).toBe(0);
    await writeRawRecord(remote.dir, ref('future'), claim('future', { v: 99 }));
    await writeRawRecord(remote.dir, ref('not-json'), '{"abcd": "claim", "v": 1,');
    await writeRawRecord(remote.dir, ref('wrong-shape'), JSON.stringify({ abcd: 'claim', v: 1, holder: 'nobody' }));
    await writeRawRecord(remote.dir, ref('huge-note'), claim('huge-note', { note: 'x'.repeat(1024 * 1024) }));
    await writeRawRecord(remote.dir, ref('zoe-item'), claim('zoe-item'));
    await writeRawRecord(remote.dir, 'refs/heads/abcd/future-kind/from-the-future', '{"abcd": "future-kind", "v": 1}');
  });
  afterAll(cleanupTemp);

  it('status lists every readable claim and names each refused record', async () => {
    const r = await a.abcd(['status', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.claims.map((c: { item: string }) => c.item).sort()).toEqual(['healthy', 'zoe-item']);
    const refused = new Map(r.json.refused.map((x: { ref: string }) => [x.ref, x]));
    expect(refused.get(ref('future'))).toMatchObject({ code: 'record-too-new', exit: 6, data: { version: 99, known: 1 } });
    expect((refused.get(ref('future')) as { message: string }).message).toMatch(/version 99.*version 1/);
    expect(refused.get(ref('not-json'))).toMatchObject({ code: 'record-invalid', data: { reason: 'not-json' } });
    expect(refused.get(ref('wrong-shape'))).toMatchObject({ code: 'record-invalid', data: { reason: 'schema' } });
    expect(refused.get(ref('huge-note'))).toMatchObject({ code: 'record-invalid', data: { reason: 'oversized' } });
    expect(r.json.unknown).toEqual(['refs/heads/abcd/future-kind/from-the-future']);
    const remoteRefs = await remote.refs();
    for (const id of ['future', 'not-json', 'wrong-shape', 'huge-note', 'zoe-item', 'healthy']) expect(remoteRefs.has(ref(id))).toBe(true);
  });

  it('status on a terminal-less stdout prints the refusals without a stack', async () => {
    const r = await a.abcd(['status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/refused refs\/heads\/abcd\/claims\/local\/item\/future: .*version 99/);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  });

  it('reserve of a too-new record refuses with exit 6 naming both versions', async () => {
    const r = await a.abcd(['reserve', 'future']);
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/version 99, newer than version 1/);
    expect(r.stderr).toContain(ref('future'));
  });

  it('reserve of a corrupt record refuses naming the ref, without a stack unless --debug', async () => {
    const plain = await a.abcd(['reserve', 'not-json', '--json']);
    expect(plain.code).toBe(8);
    expect(plain.json.refusal).toMatchObject({ code: 'record-invalid', data: { ref: ref('not-json') } });
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const debug = await a.abcd(['reserve', 'wrong-shape', '--debug']);
    expect(debug.code).toBe(8);
    expect(debug.stderr).toContain(ref('wrong-shape'));
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it('a valid name passed after -- is reserved (so the refusals below are about the names)', async () => {
    const r = await a.abcd(['reserve', '--json', '--', 'after-dashes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.item).toBe('after-dashes');
  });

  it.each([
    ['..', 'dots'],
    ['a..b', 'double dot'],
    ['fix~1', 'tilde'],
    ['a:b', 'stray colon'],
    ['has space', 'space'],
    ['-leading', 'leading dash'],
    ['name.lock', '.lock suffix'],
    ['x'.repeat(300), '300 characters'],
    ['UPPER', 'capitals'],
  ])('a hostile item name (%s: %s) is a usage error that creates nothing', async (name) => {
    const before = await remote.refs();
    const r = await a.abcd(['reserve', '--json', '--', name]);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.json.refusal).toMatchObject({ code: 'usage', data: { reason: expect.any(String) } });
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
    expect(await remote.refs()).toEqual(before);
  });
});
