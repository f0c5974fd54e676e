// A record tip abcd itself just pushed, read back from the loose objects it wrote: the tip
// cache learns it so the next verb does not ask git for bytes this one wrote. Only the plain
// shape of a record commit is learned (a tree holding only the record file); anything else is
// left for the next read to ask git, exactly as without this.
import { readLooseObject } from '../git/files/loose-read.js';
import { MAX_RECORD_BYTES } from './envelope.js';
import { RECORD_FILE } from './refs.js';

/** The record blob of the commit `tip`, when the objects show a plain record commit. */
export async function recordBlobOf(objectsDir: string, tip: string): Promise<Buffer | undefined> {
  const commit = await readLooseObject(objectsDir, tip);
  if (commit?.type !== 'commit') return undefined;
  const tree = /^tree ([0-9a-f]{40}|[0-9a-f]{64})\n/.exec(commit.body.toString('latin1', 0, 80))?.[1];
  if (!tree) return undefined;
  const t = await readLooseObject(objectsDir, tree);
  const entry = Buffer.from(`100644 ${RECORD_FILE}\0`, 'latin1');
  const idBytes = tip.length / 2;
  if (t?.type !== 'tree' || t.body.length !== entry.length + idBytes || !t.body.subarray(0, entry.length).equals(entry)) return undefined;
  const blob = await readLooseObject(objectsDir, t.body.subarray(entry.length).toString('hex'));
  if (blob?.type !== 'blob' || blob.body.length > MAX_RECORD_BYTES) return undefined;
  return blob.body;
}
