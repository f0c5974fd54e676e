// The records of the local cache, read from their tips in one local process whatever the
// count: the sizes first, so a huge blob on the remote is refused unread, then the blobs.
import { MAX_RECORD_BYTES } from './envelope.js';
import { RECORD_FILE } from './refs.js';
import type { Git } from '../git/git.js';
import type { ObjectInfo } from '../git/object-batch.js';
import type { GitObject } from '../git/objects.js';
import type { RawRecord } from './store-types.js';

/** Each tip's record: its blob, or why it has none (no record file, oversized, extra files). */
export async function readRecords(git: Git, refs: readonly { tip: string; ref: string }[]): Promise<RawRecord[]> {
  if (refs.length === 0) return [];
  // Each tip's tree is sized in the same process: a tree holding only the record file has
  // one known size, so a second file shows without listing any tree.
  const specs = refs.flatMap((r) => [`${r.tip}:${RECORD_FILE}`, `${r.tip}^{tree}`]);
  let records: RawRecord[] = [];
  const sized = (infos: (ObjectInfo | undefined)[]) => {
    records = refs.flatMap(({ ref, tip }, i) => recordOf(ref, tip, infos[2 * i], infos[2 * i + 1]));
    return records.flatMap((r) => (r.blobOid ? [r.blobOid] : []));
  };
  const one = await git.objects.infoThenContents(specs, sized);
  if (one) {
    const wanted = records.filter((r) => r.blobOid);
    wanted.forEach((r, i) => (r.blob = one.contents[i]));
    return records.map(withoutOid);
  }
  // A git before 2.36 (no --batch-command): the sizes, then the blobs, in two processes.
  sized(await git.objects.infos(specs));
  const wanted = records.filter((r) => r.blobOid);
  if (wanted.length === 0) return records.map(withoutOid);
  const batch = await git.objects.readObjects(wanted.map((r) => r.blobOid!));
  if (!batch.ok) throw new Error(`git cat-file --batch failed: ${batch.failure.stderr.trim()}`);
  readBlobs(batch.value, wanted);
  return records.map(withoutOid);
}

/**
 * A tip's record as its sizes show it: a blob to read, oversized, or none. A tip with neither a
 * tree nor a file is not in this clone at all (refs read from the files list it; for-each-ref
 * skips a ref whose object is missing, and so does this).
 */
function recordOf(ref: string, tip: string, file: ObjectInfo | undefined, tree: ObjectInfo | undefined): RawRecord[] {
  if (!file && !tree) return [];
  const extra = holdsMoreThanRecord(tree, tip) ? { extraFiles: true as const } : {};
  if (file?.type !== 'blob') return [{ ref, tip, ...extra }];
  return [file.size > MAX_RECORD_BYTES ? { ref, tip, oversized: file.size, ...extra } : { ref, tip, blobOid: file.oid, ...extra }];
}

/** Fills each record's blob from the objects read, in request order. */
function readBlobs(objects: readonly (GitObject | undefined)[], wanted: RawRecord[]): void {
  wanted.forEach((r, i) => {
    const o = objects[i];
    if (!o) throw new Error(`git cat-file --batch stopped early at ${r.ref}`);
    r.blob = o.content;
  });
}

/**
 * Whether a tip's tree is larger than one entry for the record file:
 * "<6-digit mode> record.json\0" plus the raw object id.
 */
function holdsMoreThanRecord(tree: ObjectInfo | undefined, tip: string): boolean {
  if (tree?.type !== 'tree') return false;
  return tree.size > 6 + 1 + RECORD_FILE.length + 1 + tip.length / 2;
}

function withoutOid(r: RawRecord): RawRecord {
  const { blobOid: _oid, ...rest } = r;
  return rest;
}
