// Records abcd must refuse by name without losing any other: too new, corrupt, hostile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { cleanupTemp, git, isolatedEnv } from '../harness/git-env.js';
import { makeRemote, writeRawRecord, type BareRemote } from '../harness/remote.js';
import { makeSession, type Json, type Session } from '../harness/session.js';

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

/** A record commit whose tree holds record.json and `more` other files, written straight into the remote. */
async function writeRecordWithFiles(remoteDir: string, refName: string, content: string, more: Record<string, string>): Promise<string> {
  const env = isolatedEnv(remoteDir);
  const hash = async (text: string) =>
    (await execa('git', ['-C', remoteDir, 'hash-object', '-w', '--stdin'], { env, extendEnv: false, input: text })).stdout.trim();
  const lines = [`100644 blob ${await hash(content)}\trecord.json`];
  for (const [name, text] of Object.entries(more)) lines.push(`100644 blob ${await hash(text)}\t${name}`);
  const tree = (await execa('git', ['-C', remoteDir, 'mktree'], { env, extendEnv: false, input: lines.join('\n') + '\n' })).stdout.trim();
  const commit = await git(remoteDir, ['commit-tree', tree, '-m', 'record with more files'], env);
  await git(remoteDir, ['update-ref', refName, commit], env);
  return commit;
}

async function recordOf(remote: BareRemote, refName: string): Promise<Json> {
  return JSON.parse(await git(remote.dir, ['show', `${refName}:record.json`], isolatedEnv(remote.dir)));
}

describe('records abcd refuses by name', () => {
  let remote: BareRemote;
  let a: Session;
  const YEAR_2199 = Date.UTC(2199, 0, 1);
  beforeAll(async () => {
    remote = await makeRemote();
    a = await makeSession(remote.url, 'alice');
    await writeRawRecord(remote.dir, ref('from-2199'), claim('from-2199', { at: YEAR_2199, ttl: 30 * 86_400_000 }));
    await writeRecordWithFiles(remote.dir, ref('two-files'), claim('two-files'), { 'payload.sh': 'echo hi\n' });
    await writeRawRecord(remote.dir, ref('posing'), claim('someone-else'));
    await writeRawRecord(remote.dir, ref('tomorrow-ish'), claim('tomorrow-ish', { at: Date.now() + 3_600_000 }));
  });
  afterAll(cleanupTemp);

  it('status refuses a far-future date, a second file and a foreign item by name, and keeps the rest', async () => {
    const r = await a.abcd(['status', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const refused = new Map(r.json.refused.map((x: { ref: string }) => [x.ref, x]));
    expect(refused.get(ref('from-2199'))).toMatchObject({ code: 'record-invalid', data: { reason: 'future-dated', at: YEAR_2199 } });
    expect(refused.get(ref('two-files'))).toMatchObject({ code: 'record-invalid', data: { reason: 'extra-files' } });
    expect(refused.get(ref('posing'))).toMatchObject({
      code: 'record-invalid',
      data: { reason: 'item-mismatch', item: 'local:item:someone-else' },
    });
    // An hour ahead is within the margin (a skewed clock, not a broken record).
    expect(r.json.claims.map((c: { item: string }) => c.item)).toEqual(['tomorrow-ish']);
    for (const id of ['from-2199', 'two-files', 'posing']) expect((await remote.refs()).has(ref(id))).toBe(true);
  });

  it('reserve of each refused record refuses by name and changes nothing', async () => {
    for (const [id, reason] of [
      ['from-2199', 'future-dated'],
      ['two-files', 'extra-files'],
      ['posing', 'item-mismatch'],
    ]) {
      const before = await remote.refs();
      const r = await a.abcd(['reserve', id!, '--json']);
      expect(r.code, r.stdout).toBe(8);
      expect(r.json.refusal).toMatchObject({ code: 'record-invalid', data: { ref: ref(id!), reason } });
      expect(r.json.refusal.message).toContain(`abcd release ${id} --force`);
      expect(await remote.refs()).toEqual(before);
    }
  });

  it('release --force clears a refused record, even one that is not JSON, in a generation naming who cleared it', async () => {
    await writeRawRecord(remote.dir, ref('garbage'), '\u0000not json at all');
    for (const id of ['from-2199', 'two-files', 'posing', 'garbage']) {
      const old = (await remote.refs()).get(ref(id))!;
      const started = Date.now();
      const r = await a.abcd(['release', id, '--force', '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json).toMatchObject({ ok: true, cleared: true, replaced: { tip: old, refused: expect.any(String) } });
      const rec = await recordOf(remote, ref(id));
      expect(rec).toMatchObject({
        state: 'released',
        item: `local:item:${id}`,
        holder: { person: 'alice@example.com', session: 'alice' },
        cleared: { tip: old },
      });
      expect(rec.at).toBeGreaterThanOrEqual(started - 5_000);
      expect(rec.at).toBeLessThanOrEqual(Date.now() + 5_000);
      // Leased on the tip read: the cleared generation's parent is the record it replaced.
      expect(await git(remote.dir, ['rev-parse', `${ref(id)}^`], isolatedEnv(remote.dir))).toBe(old);
      const again = await a.abcd(['reserve', id, '--json']);
      expect(again.code, again.stdout).toBe(0);
    }
  });

  it('release --force clears another session’s live claim; that holder is then fenced', async () => {
    const b = await makeSession(remote.url, 'bob');
    expect((await b.abcd(['reserve', 'judged-dead'])).code).toBe(0);
    const old = (await remote.refs()).get(ref('judged-dead'))!;
    const r = await a.abcd(['release', 'judged-dead', '--force', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ cleared: true, replaced: { tip: old, state: 'held', holder: expect.stringContaining('bob') } });
    expect(await recordOf(remote, ref('judged-dead'))).toMatchObject({
      state: 'released',
      gen: 1,
      cleared: { tip: old, holder: { session: 'bob' } },
    });
    const renew = await b.abcd(['renew', 'judged-dead', '--json']);
    expect(renew.code).toBe(5);
    expect(renew.json.refusal).toMatchObject({ code: 'fenced', data: { holder: expect.stringContaining('alice') } });
  });

  it('release --force takes the item’s unreadable queue entry with it, in the same push', async () => {
    const qref = 'refs/heads/abcd/queue/local/item/stuck';
    await writeRawRecord(remote.dir, ref('stuck'), claim('stuck'));
    await writeRawRecord(remote.dir, qref, '{"abcd": "queue", "v": 1, "item": ');
    const r = await a.abcd(['release', 'stuck', '--force', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ cleared: true, dequeued: qref, replaced: { holder: expect.stringContaining('zoe') } });
    const refs = await remote.refs();
    expect(refs.has(qref)).toBe(false);
    expect(refs.get(ref('stuck'))).toBe(r.json.claimTip);
  });
});

describe('fields this abcd does not know survive every rewrite', () => {
  let remote: BareRemote;
  let a: Session;
  const extra = { futureField: { nested: [1, 'two'] }, priority: 7 };
  /** Rewrites alice's claim on the remote as a newer abcd would, with fields this one does not know. */
  const addFields = async (id: string) => {
    const rec = await recordOf(remote, ref(id));
    await writeRawRecord(remote.dir, ref(id), JSON.stringify({ ...rec, ...extra }));
  };
  beforeAll(async () => {
    remote = await makeRemote();
    a = await makeSession(remote.url, 'alice');
  });
  afterAll(cleanupTemp);

  it('renew, reserve, push and release keep futureField and priority', async () => {
    expect((await a.abcd(['reserve', 'kept'])).code).toBe(0);
    await a.git(['checkout', '-q', '-b', 'work/kept']);
    await a.commit('k.txt', 'k\n');
    const steps: string[][] = [
      ['renew', 'kept'],
      ['reserve', 'kept'],
      ['push', 'kept'],
      ['release', 'kept'],
    ];
    for (const step of steps) {
      await addFields('kept');
      const r = await a.abcd([...step, '--json']);
      expect(r.code, `${step.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(await recordOf(remote, ref('kept')), step.join(' ')).toMatchObject(extra);
    }
    expect(await recordOf(remote, ref('kept'))).toMatchObject({ state: 'released' });
  });

  it('still validates the fields it knows', async () => {
    await writeRawRecord(remote.dir, ref('bad-known'), claim('bad-known', { ...extra, ttl: 'forever' }));
    const r = await a.abcd(['status', '--json']);
    const refused = r.json.refused.find((x: { ref: string }) => x.ref === ref('bad-known'));
    expect(refused).toMatchObject({ code: 'record-invalid', data: { reason: 'schema' } });
  });
});
