// The record cache's reads: its refs from the clone's files where they are plain (else
// for-each-ref), and each ref's record from the tip cache where its tip was read before.
import { unlessSystemError } from '../core/best-effort.js';
import { readRefsFromFiles } from '../git/files/refs-read.js';
import type { Git } from '../git/git.js';
import { readRecords } from './store-blobs.js';
import { loadChecked, saveChecked, type CheckedTipsFile } from './checked-tips.js';
import type { KnownKind } from './envelope.js';
import type { RawRecord, RefUpdate } from './store-types.js';
import { addTips, loadTips, saveTips, tipsChanged, type TipRead } from './tip-cache.js';
import { recordBlobOf } from './tip-seed.js';

/** The refs under `prefix` and the `also` refs that exist, with their tips, as for-each-ref lists them. */
export async function listCacheRefs(
  git: Git,
  commonDir: string | undefined,
  prefix: string,
  also: readonly string[],
): Promise<{ oid: string; name: string }[]> {
  const files = commonDir !== undefined ? await readRefsFromFiles(commonDir, prefix, also) : undefined;
  if (files) return files;
  return (await git.refs.list([prefix, ...also])).map(({ oid, ref }) => ({ oid, name: ref }));
}

/** Each ref's record: the tips read before from the tip cache at `file`, only the others from git. */
export async function readWithTips(
  git: Git,
  file: string | undefined,
  refs: readonly { tip: string; ref: string }[],
): Promise<RawRecord[]> {
  if (!file) return readRecords(git, refs);
  const kept = loadTips(file);
  const fresh = refs.filter((r) => !kept.has(r.tip));
  const read = new Map((await readRecords(git, fresh)).map((r) => [r.ref, r]));
  const records = refs.flatMap((r): RawRecord[] => {
    const k = kept.get(r.tip);
    if (k) return [{ ref: r.ref, tip: r.tip, ...k }];
    const got = read.get(r.ref);
    return got ? [got] : [];
  });
  // The tips no ref lists now stay a while: a record this clone pushed is learned before
  // its cache ref moves there (the next fetch moves it), and a read between lists the old tip.
  // A cache the disk refuses to write only means the next read asks git again; a bug is thrown on.
  const tooMany = kept.size > records.length + UNLISTED_KEPT;
  if (tooMany || tipsChanged(kept, records)) {
    await saveTips(file, [...records, ...unlisted(kept, records)]).catch(unlessSystemError(undefined));
  }
  return records;
}

// How many kept tips that no ref lists now are kept on, the latest learned last.
const UNLISTED_KEPT = 256;

function unlisted(kept: ReadonlyMap<string, TipRead>, records: readonly RawRecord[]): RawRecord[] {
  const listed = new Set(records.map((r) => r.tip));
  const rest = [...kept].filter(([tip]) => !listed.has(tip));
  return rest.slice(-UNLISTED_KEPT).map(([tip, read]) => ({ ref: '', tip, ...read }));
}

/**
 * Keeps the records a push just sent in the tip cache, called only after the remote took them
 * (a tip learned early would be a record nobody has). A tip whose objects are not plain loose
 * files in `objectsDir` is left for the next read to ask git, as without this.
 */
export async function learnPushed(
  files: { readonly tipCache: string; readonly objectsDir?: string },
  updates: readonly RefUpdate[],
): Promise<void> {
  const { objectsDir } = files;
  if (!objectsDir) return;
  const read = await Promise.all(
    updates.map(async (u) => (u.newOid ? { tip: u.newOid, blob: await recordBlobOf(objectsDir, u.newOid) } : undefined)),
  );
  const learned = read.flatMap((l) => (l?.blob ? [{ tip: l.tip, blob: l.blob }] : []));
  if (learned.length === 0) return;
  // A cache the disk refuses to write only means the next read asks git; a bug is thrown on.
  await addTips(files.tipCache, learned).catch(unlessSystemError(undefined));
}

/** Marks each record whose tip this build decoded before (RawRecord.checked), from `file`. */
export function markChecked(file: CheckedTipsFile, records: RawRecord[]): void {
  if (records.length === 0) return;
  const checked = loadChecked(file);
  if (checked.size === 0) return;
  for (const r of records) {
    const kind = checked.get(r.tip);
    if (kind) r.checked = kind;
  }
}

/**
 * Keeps at `file` the tips of `records` decoded before and those `learned` now; nothing
 * learned, nothing written. Only tips listed now are kept, so the file never outgrows the records.
 */
export async function keepCheckedTips(
  file: CheckedTipsFile,
  records: readonly RawRecord[],
  learned: ReadonlyMap<string, KnownKind>,
): Promise<void> {
  if (learned.size === 0) return;
  const keep = new Map<string, KnownKind>();
  for (const r of records) {
    const kind = r.checked ?? learned.get(r.tip);
    if (kind) keep.set(r.tip, kind);
  }
  // A disk that refuses the write only means the next read checks those records again; a bug is thrown on.
  await saveChecked(file, keep).catch(unlessSystemError(undefined));
}
