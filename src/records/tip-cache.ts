// What each record tip held when it was last read, kept in the clone: a commit's id fixes its
// tree and its record blob, so a tip read once needs no git process again. Every read still
// decodes and checks the blob as before; this only saves asking git for bytes it gave already.
import { readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unlessSystemError } from '../core/best-effort.js';
import { tempTag } from '../core/temp-name.js';
import { MAX_RECORD_BYTES } from './envelope.js';
import type { RawRecord } from './store-types.js';

/** A tip's read: its blob, or why it has none. */
export type TipRead = Pick<RawRecord, 'blob' | 'oversized' | 'extraFiles'>;

// The limit is part of the header: a build with another one reads every tip afresh.
const HEADER = `abcd-record-tips 1 ${MAX_RECORD_BYTES}\n`;
const ENTRY = /^([0-9a-f]{40}|[0-9a-f]{64}) ([bno]) (\d{1,9}) ([01])$/;

/** The tips kept at `path`; an absent, foreign or damaged file is an empty cache. */
export function loadTips(path: string): Map<string, TipRead> {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    // Absent or unreadable: every tip is read from git, as without a cache. A bug is thrown on.
    return unlessSystemError(new Map<string, TipRead>())(e);
  }
  return parseTips(buf) ?? new Map();
}

function parseTips(buf: Buffer): Map<string, TipRead> | undefined {
  if (buf.toString('latin1', 0, HEADER.length) !== HEADER) return undefined;
  const out = new Map<string, TipRead>();
  let pos = HEADER.length;
  while (pos < buf.length) {
    const nl = buf.indexOf(10, pos);
    if (nl < 0) return undefined;
    const m = ENTRY.exec(buf.toString('latin1', pos, nl));
    if (!m) return undefined;
    const [, tip = '', kind, sizeText = '', extra] = m;
    const size = Number(sizeText);
    pos = nl + 1;
    const read: TipRead = extra === '1' ? { extraFiles: true } : {};
    if (kind === 'o') read.oversized = size;
    if (kind === 'b') {
      if (size > MAX_RECORD_BYTES || pos + size + 1 > buf.length || buf[pos + size] !== 10) return undefined;
      read.blob = buf.subarray(pos, pos + size);
      pos += size + 1;
    }
    out.set(tip, read);
  }
  return out;
}

/** Keeps exactly these records' tips at `path`, replacing the file whole (a reader sees old or new). */
export async function saveTips(path: string, records: readonly RawRecord[]): Promise<void> {
  const parts: Buffer[] = [Buffer.from(HEADER, 'latin1')];
  const seen = new Set<string>();
  for (const r of records) {
    if (seen.has(r.tip)) continue;
    seen.add(r.tip);
    const kind = r.oversized !== undefined ? 'o' : r.blob ? 'b' : 'n';
    const size = kind === 'o' ? (r.oversized ?? 0) : kind === 'b' ? (r.blob?.length ?? 0) : 0;
    parts.push(Buffer.from(`${r.tip} ${kind} ${size} ${r.extraFiles ? 1 : 0}\n`, 'latin1'));
    if (kind === 'b' && r.blob) parts.push(r.blob, Buffer.from('\n'));
  }
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.record-tips.${tempTag()}.tmp`);
  try {
    await writeFile(tmp, Buffer.concat(parts));
    await rename(tmp, path);
  } finally {
    await rm(tmp, { force: true });
  }
}

/** Whether a tip just read is not kept yet (kept tips no ref lists any more are no change). */
export function tipsChanged(kept: ReadonlyMap<string, TipRead>, records: readonly RawRecord[]): boolean {
  return records.some((r) => !kept.has(r.tip));
}

/**
 * Keeps `learned` tips beside those kept at `path`: the records a push just sent, learned
 * without a git process. The tips they replace stay until a read finds no ref lists them.
 */
export async function addTips(path: string, learned: readonly { tip: string; blob: Buffer }[]): Promise<void> {
  const kept = loadTips(path);
  for (const { tip, blob } of learned) kept.set(tip, { blob });
  await saveTips(
    path,
    [...kept].map(([tip, read]) => ({ ref: '', tip, ...read })),
  );
}
