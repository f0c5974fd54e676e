// The paths that differ between two trees, as `git diff --name-only --no-renames -z` lists them,
// computed from the trees themselves: both walked together in git's tree order, descending only
// into subtrees whose ids differ. A path is listed when it is added, deleted, or its content or
// mode (as git canonicalises modes) differs: a file turned symlink, an executable bit, a
// submodule's commit, a file turned folder (the file and every path under the folder). Anything
// git might read differently (a tree out of order, a malformed entry, an object not there) is
// undefined: ask git.
import type { GitObject, Tried } from './object-types.js';

type Read = (oids: readonly string[]) => Promise<Tried<(GitObject | undefined)[]>>;

export interface Entry {
  /** The name as bytes (latin1), then "/" for a tree: the key git sorts a tree's entries by. */
  key: string;
  name: string;
  mode: number;
  oid: string;
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFGITLINK = 0o160000;

/**
 * The paths changed from tree `from` to tree `to` (ids, or `<commit>^{tree}`), sorted as git
 * lists them; undefined: ask git.
 */
export async function changedPathsOfTrees(read: Read, from: string, to: string): Promise<string[] | undefined> {
  const paths: string[] = [];
  // Pairs of trees still to compare, one level at a time: one read per level for all of them.
  let level: { a?: string; b?: string; prefix: string }[] = [{ a: from, b: to, prefix: '' }];
  while (level.length) {
    const wanted = [...new Set(level.flatMap((p) => [p.a, p.b].filter((o): o is string => o !== undefined)))];
    const r = await read(wanted);
    if (!r.ok) return undefined;
    const trees = new Map<string, Entry[]>();
    for (const [i, obj] of r.value.entries()) {
      if (obj?.type !== 'tree') return undefined;
      const entries = parseTree(obj.content, obj.oid.length / 2);
      if (!entries) return undefined;
      trees.set(wanted[i]!, entries);
    }
    const next: typeof level = [];
    for (const { a, b, prefix } of level) {
      const left = a === undefined ? [] : trees.get(a)!;
      const right = b === undefined ? [] : trees.get(b)!;
      let i = 0;
      let j = 0;
      while (i < left.length || j < right.length) {
        const l = left[i];
        const rt = right[j];
        const cmp = !l ? 1 : !rt ? -1 : l.key < rt.key ? -1 : l.key > rt.key ? 1 : 0;
        if (cmp < 0) {
          one(l!, 'a');
          i++;
        } else if (cmp > 0) {
          one(rt!, 'b');
          j++;
        } else {
          if (isTree(l!.mode)) {
            if (l!.oid !== rt!.oid) next.push({ a: l!.oid, b: rt!.oid, prefix: `${prefix}${l!.name}/` });
          } else if (l!.oid !== rt!.oid || l!.mode !== rt!.mode) paths.push(prefix + l!.name);
          i++;
          j++;
        }
      }
      // An entry on one side only: a path, or every path under a tree.
      function one(e: Entry, side: 'a' | 'b') {
        if (isTree(e.mode)) next.push({ [side]: e.oid, prefix: `${prefix}${e.name}/` });
        else paths.push(prefix + e.name);
      }
    }
    level = next;
  }
  // git lists in tree order, depth first: for full paths that is their byte order.
  paths.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  return paths.map((p) => Buffer.from(p, 'latin1').toString('utf8'));
}

/** A tree's entries (`<mode> <name>\0<id>` each), names as latin1; undefined when git might read them otherwise. */
export function parseTree(body: Buffer, idBytes: number): Entry[] | undefined {
  const out: Entry[] = [];
  let last: string | undefined;
  for (let pos = 0; pos < body.length;) {
    const sp = body.indexOf(32, pos);
    const nul = sp < 0 ? -1 : body.indexOf(0, sp);
    if (sp < 0 || nul < 0 || nul + 1 + idBytes > body.length) return undefined;
    const modeText = body.toString('latin1', pos, sp);
    const name = body.toString('latin1', sp + 1, nul);
    if (!/^[0-7]{5,6}$/.test(modeText) || name === '' || name === '.' || name === '..' || name.includes('/')) return undefined;
    const mode = canonMode(parseInt(modeText, 8));
    const key = isTree(mode) ? `${name}/` : name;
    if (last !== undefined && !(last < key)) return undefined;
    last = key;
    out.push({ key, name, mode, oid: body.toString('hex', nul + 1, nul + 1 + idBytes) });
    pos = nul + 1 + idBytes;
  }
  return out;
}

/** git's canon_mode: a file is 100644 or 100755, a symlink, a tree, anything else a gitlink. */
function canonMode(mode: number): number {
  const type = mode & S_IFMT;
  if (type === S_IFREG) return S_IFREG | (mode & 0o100 ? 0o755 : 0o644);
  if (type === S_IFLNK) return S_IFLNK;
  if (type === S_IFDIR) return S_IFDIR;
  return S_IFGITLINK;
}

export function isTree(mode: number): boolean {
  return mode === S_IFDIR;
}
