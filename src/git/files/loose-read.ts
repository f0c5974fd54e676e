// Reading one loose object from a clone's object directory, in process: the file git writes
// for an object it has not packed yet. Anything unusual (packed, damaged, another id) reads as
// absent, and the caller asks git.
import { createHash } from '../../core/builtins.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inflateSync } from '../../core/builtins.js';

export interface LooseObject {
  type: string;
  body: Buffer;
}

// No loose object abcd reads this way is anywhere near this size; a larger one is left to git.
const MAX_LOOSE_BYTES = 1 << 20;

/** The loose object `oid` in `dir`, checked against its id; undefined when it is not plainly there. */
export async function readLooseObject(dir: string, oid: string): Promise<LooseObject | undefined> {
  if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(oid)) return undefined;
  let raw: Buffer;
  try {
    const data = await readFile(join(dir, oid.slice(0, 2), oid.slice(2)));
    raw = inflateSync(data, { maxOutputLength: MAX_LOOSE_BYTES });
  } catch (e) {
    // Packed, absent, unreadable or damaged: git reads it. A bug is thrown on.
    if (unreadable(e)) return undefined;
    throw e;
  }
  const nul = raw.indexOf(0);
  const m = nul > 0 ? /^(blob|tree|commit|tag) (\d{1,9})$/.exec(raw.toString('latin1', 0, nul)) : null;
  if (!m || Number(m[2]) !== raw.length - nul - 1) return undefined;
  if (
    createHash(oid.length === 40 ? 'sha1' : 'sha256')
      .update(raw)
      .digest('hex') !== oid
  )
    return undefined;
  return { type: m[1]!, body: raw.subarray(nul + 1) };
}

/** A failed read of the file, damaged compressed data, or an object over the size read here. */
function unreadable(e: unknown): boolean {
  if (!(e instanceof Error) || !('code' in e) || typeof e.code !== 'string') return false;
  return 'syscall' in e || e.code.startsWith('Z_') || e.code === 'ERR_BUFFER_TOO_LARGE';
}
