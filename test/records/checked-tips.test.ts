// A record tip this build decoded before is read again with no schema, and answers what the
// schema answered; only a tip whose record was exactly its blob's JSON is kept, and a file
// written by another build, or damaged, is trusted for nothing.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeClaim, type Claim } from '../../src/records/claim.js';
import { loadChecked, saveChecked } from '../../src/records/checked-tips.js';
import type { KnownKind } from '../../src/records/envelope.js';
import { keepCheckedTips, markChecked } from '../../src/records/store-cache.js';
import type { RawRecord } from '../../src/records/store-types.js';
import { buildSnapshot, type SettingsJudge } from '../../src/repo/snapshot.js';
import { DEFAULT_SETTINGS } from '../../src/records/settings.js';

const NOW = Date.UTC(2026, 11, 1);
const holder = { person: 'p@example.com', host: 'h', session: 's' };
const claim = (item: string): Claim => ({
  abcd: 'claim',
  v: 1,
  item: `local:item:${item}`,
  state: 'held',
  holder,
  gen: 1,
  at: NOW,
  ttl: 60_000,
});
const ref = (item: string) => `refs/heads/abcd/claims/local/item/${item}`;
const tip = (c: string) => c.repeat(40);
const judge: SettingsJudge = () => Promise.resolve({ settings: { ...DEFAULT_SETTINGS }, trust: { protected: false, signers: '/list' } });

const dirs: string[] = [];
async function checkedFile(build = 'b'.repeat(32)) {
  const dir = await mkdtemp(join(tmpdir(), 'abcd-checked-'));
  dirs.push(dir);
  return { path: join(dir, 'abcd', 'record-checked'), build };
}

async function decode(raws: RawRecord[]) {
  const learned = new Map<string, KnownKind>();
  const snap = await buildSnapshot(raws, { readAt: NOW, judge, learned });
  return { snap, learned };
}

describe('the tips a build checked', () => {
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('learns a record whose schema answer is its blob, not one the schema changed or refused', async () => {
    // The holder is a strict object: a field it does not name is stripped, so the answer is not the blob.
    const stripped = JSON.stringify({ ...claim('extra'), holder: { ...holder, extra: 1 } });
    const invalid = JSON.stringify({ ...claim('bad'), ttl: 'soon' });
    const { snap, learned } = await decode([
      { ref: ref('page'), tip: tip('1'), blob: Buffer.from(encodeClaim(claim('page'))) },
      { ref: ref('extra'), tip: tip('2'), blob: Buffer.from(stripped) },
      { ref: ref('bad'), tip: tip('3'), blob: Buffer.from(invalid) },
    ]);
    expect([...learned]).toEqual([[tip('1'), 'claim']]);
    expect(snap.claims.get(ref('extra'))?.claim.holder).toEqual(holder);
    expect(snap.refused.get(ref('bad'))?.refusal.code).toBe('record-invalid');
  });

  it('reads a checked tip as its JSON with no schema, answering what the schema answered', async () => {
    const blob = Buffer.from(encodeClaim({ ...claim('page'), note: 'a note', since: NOW - 5 }));
    const checked = await decode([{ ref: ref('page'), tip: tip('1'), blob }]);
    const again = await decode([{ ref: ref('page'), tip: tip('1'), blob, checked: 'claim' }]);
    expect(again.snap.claims.get(ref('page'))).toEqual(checked.snap.claims.get(ref('page')));
    expect(again.learned.size).toBe(0);
    // No schema runs for a checked tip: a blob the schema would refuse is taken as it is.
    const unchecked = Buffer.from(JSON.stringify({ ...claim('page'), ttl: 'soon' }));
    const trusted = await decode([{ ref: ref('page'), tip: tip('1'), blob: unchecked, checked: 'claim' }]);
    expect(trusted.snap.claims.get(ref('page'))?.claim.ttl).toBe('soon');
  });

  it("still refuses a checked tip on what its ref and tree say: another item's name, a far future date, extra files", async () => {
    const other = Buffer.from(encodeClaim(claim('other')));
    const future = Buffer.from(encodeClaim({ ...claim('later'), at: NOW + 2 * 86_400_000 }));
    const page = Buffer.from(encodeClaim(claim('page')));
    const { snap } = await decode([
      { ref: ref('page'), tip: tip('1'), blob: other, checked: 'claim' },
      { ref: ref('later'), tip: tip('2'), blob: future, checked: 'claim' },
      { ref: ref('files'), tip: tip('3'), blob: page, checked: 'claim', extraFiles: true },
    ]);
    expect(snap.claims.size).toBe(0);
    expect([...snap.refused.values()].map((r) => r.refusal.data?.reason)).toEqual(['item-mismatch', 'future-dated', 'extra-files']);
  });

  it('a tip checked as one kind is decoded by the schema when read as another', async () => {
    const blob = Buffer.from(encodeClaim(claim('page')));
    const queueRef = 'refs/heads/abcd/queue/local/item/page';
    const { snap } = await decode([{ ref: queueRef, tip: tip('1'), blob, checked: 'claim' }]);
    expect(snap.refused.get(queueRef)?.refusal.code).toBe('record-invalid');
  });

  it('keeps only the tips listed now, and trusts nothing from another build or a damaged file', async () => {
    const file = await checkedFile();
    const listed: RawRecord[] = [
      { ref: ref('a'), tip: tip('1'), checked: 'claim' },
      { ref: ref('b'), tip: tip('2') },
      { ref: ref('c'), tip: tip('3') },
    ];
    await keepCheckedTips(
      file,
      listed,
      new Map<string, KnownKind>([
        [tip('2'), 'claim'],
        [tip('9'), 'claim'],
      ]),
    );
    expect([...loadChecked(file)]).toEqual([
      [tip('1'), 'claim'],
      [tip('2'), 'claim'],
    ]);
    const read: RawRecord[] = listed.map(({ ref: r, tip: t }) => ({ ref: r, tip: t }));
    markChecked(file, read);
    expect(read.map((r) => r.checked)).toEqual(['claim', 'claim', undefined]);

    expect(loadChecked({ ...file, build: 'c'.repeat(32) }).size).toBe(0);
    const text = await readFile(file.path, 'latin1');
    await writeFile(file.path, `${text}${tip('4')} not-a-kind\n`);
    expect(loadChecked(file).size).toBe(0);
    await writeFile(file.path, text.slice(0, -1));
    expect(loadChecked(file).size).toBe(0);
  });

  it('writes nothing when nothing new was learned, and an absent file checks nothing', async () => {
    const file = await checkedFile();
    await keepCheckedTips(file, [{ ref: ref('a'), tip: tip('1'), checked: 'claim' }], new Map());
    await expect(readFile(file.path)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(loadChecked(file).size).toBe(0);
    await saveChecked(file, new Map([[tip('1'), 'claim']]));
    expect(loadChecked(file).get(tip('1'))).toBe('claim');
  });
});
