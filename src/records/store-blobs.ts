// The records of the local cache, read from their tips in two local processes whatever the
// count: the sizes first, so a huge blob on the remote is refused unread, then the blobs.
import { MAX_RECORD_BYTES } from './envelope.js';
import { RECORD_FILE } from './refs.js';
import type { Git } from '../git/git.js';
import type { RawRecord } from './store-types.js';

/** Each tip's record: its blob, or why it has none (no record file, oversized, extra files). */
export async function readRecords(git: Git, refs: readonly { tip: string; ref: string }[]): Promise<RawRecord[]> {
  if (refs.length === 0) return [];
  // Each tip's tree is sized in the same process: a tree holding only the record file has
  // one known size, so a second file shows without listing any tree.
  const input = refs.map((r) => `${r.tip}:${RECORD_FILE}\n${r.tip}^{tree}\n`).join('');
  const sizes = (await git.must(['cat-file', '--batch-check'], { input })).split('\n');
  const records: RawRecord[] = refs.map(({ ref, tip }, i) => {
    const [oid, type, sizeText] = (sizes[2 * i] ?? '').split(' ');
    const size = Number(sizeText);
    const extra = holdsMoreThanRecord(sizes[2 * i + 1], tip) ? { extraFiles: true as const } : {};
    if (type !== 'blob' || !oid || !Number.isInteger(size)) return { ref, tip, ...extra };
    return size > MAX_RECORD_BYTES ? { ref, tip, oversized: size, ...extra } : { ref, tip, blobOid: oid, ...extra };
  });
  const wanted = records.filter((r) => r.blobOid);
  if (wanted.length === 0) return records.map(withoutOid);
  const batch = await git.run(['cat-file', '--batch'], { input: wanted.map((r) => `${r.blobOid}\n`).join('') });
  if (batch.exitCode !== 0) throw new Error(`git cat-file --batch failed: ${batch.stderr.trim()}`);
  readBlobs(batch.stdout, wanted);
  return records.map(withoutOid);
}

/** Fills each record's blob from `git cat-file --batch` output, in request order. */
function readBlobs(out: Buffer, wanted: RawRecord[]): void {
  let pos = 0;
  for (const r of wanted) {
    const nl = out.indexOf(10, pos);
    if (nl < 0) throw new Error(`git cat-file --batch stopped early at ${r.ref}`);
    const size = Number(out.subarray(pos, nl).toString().split(' ')[2]);
    pos = nl + 1;
    r.blob = Buffer.from(out.subarray(pos, pos + size));
    pos += size + 1;
  }
}

/**
 * Whether a tip's tree (its `cat-file --batch-check` line) is larger than one entry for the
 * record file: "<6-digit mode> record.json\0" plus the raw object id.
 */
function holdsMoreThanRecord(line: string | undefined, tip: string): boolean {
  const [, type, sizeText] = (line ?? '').split(' ');
  if (type !== 'tree') return false;
  return Number(sizeText) > 6 + 1 + RECORD_FILE.length + 1 + tip.length / 2;
}

function withoutOid(r: RawRecord): RawRecord {
  const { blobOid: _oid, ...rest } = r;
  return rest;
}
