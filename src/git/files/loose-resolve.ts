// What `cat-file --batch` answers for `<oid>`, `<oid>^{tree}` and `<oid>:<path>`, read from loose
// object files alone: the commit, then each tree on the path, each checked against its id. An
// object that is not loose (packed, over the loose reader's size), a tag to peel, a tree git
// might read otherwise, or a path of an unusual shape is left to the object reader (undefined).
// A replaced object (refs/replace/) is git's to substitute: with any replace ref, nothing is
// read here.
import { isObjectId } from '../object-id.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GitObject } from '../object-types.js';
import { isTree, parseTree } from '../tree-diff.js';
import { readLooseObject } from './loose-read.js';

const COMPONENT = /^(?!\.\.?$)[^/\n]+$/;

/**
 * The object `spec` names, from loose files only: the object, null when the trees read show
 * the path is not there (cat-file's `missing`), undefined: ask the reader.
 */
export async function readLooseSpec(objectsDir: string, spec: string): Promise<GitObject | null | undefined> {
  const m = /^([0-9a-f]{40}|[0-9a-f]{64})(\^\{tree\}|:(.*))?$/s.exec(spec);
  if (!m) return undefined;
  const [, oid, rest, path] = m as unknown as [string, string, string | undefined, string | undefined];
  const root = await loose(objectsDir, oid);
  if (!root || rest === undefined) return root;
  const tree = root.type === 'tree' ? root : root.type === 'commit' ? await loose(objectsDir, treeOfCommit(root.content) ?? '') : undefined;
  if (tree?.type !== 'tree') return undefined;
  if (path === undefined) return tree;
  const parts = path.split('/');
  if (!parts.every((p) => COMPONENT.test(p))) return undefined;
  let at: GitObject = tree;
  for (const [i, name] of parts.entries()) {
    const entries = parseTree(at.content, at.oid.length / 2);
    if (!entries) return undefined;
    const bytes = Buffer.from(name).toString('latin1');
    const e = entries.find((x) => x.name === bytes);
    if (!e) return null;
    const last = i === parts.length - 1;
    if (!last && !isTree(e.mode)) return null;
    const next = await loose(objectsDir, e.oid);
    if (!next) return undefined;
    if (!last && next.type !== 'tree') return undefined;
    at = next;
  }
  return at;
}

/** Whether the clone has replace refs, under which git reads other objects than the ids say. */
export function hasReplaceRefs(commonDir: string): boolean {
  try {
    if (readdirSync(join(commonDir, 'refs', 'replace')).length) return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return true;
  }
  try {
    return readFileSync(join(commonDir, 'packed-refs'), 'latin1').includes(' refs/replace/');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

async function loose(dir: string, oid: string): Promise<GitObject | undefined> {
  if (!isObjectId(oid)) return undefined;
  const o = await readLooseObject(dir, oid);
  return o && { oid, type: o.type, content: o.body };
}

/** The `tree <id>` a commit's first line names. */
function treeOfCommit(body: Buffer): string | undefined {
  const m = /^tree ([0-9a-f]{40}|[0-9a-f]{64})\n/.exec(body.toString('latin1', 0, 72));
  return m?.[1];
}
