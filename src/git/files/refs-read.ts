// Refs read from the repository's own files, without a git process: the loose ref files under a
// prefix, then the packed-refs file. Whatever this reader cannot read exactly as git's files
// backend does (reftable, a symbolic ref, a lock file, a name or line it does not parse) makes
// it answer undefined, and the caller asks git instead.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
// One path component of a ref abcd reads: no dot first, no ".lock" last (git's own rule for
// components is wider; anything outside this narrow one goes to git).
const COMPONENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
// Refs that live in each worktree's own git dir, not in the common dir this reader looks in.
const PER_WORKTREE = /^refs\/(?:worktree|bisect|rewritten)\//;

/** Why the files could not answer: the caller runs git. */
class Unreadable extends Error {}

/**
 * The tips of every ref under `prefix` (ending in "/") and of the `exact` refs that exist, as
 * `git for-each-ref` lists them in a files-backed repository, sorted by name; undefined: ask git.
 */
export async function readRefsFromFiles(
  commonDir: string,
  prefix: string,
  exact: readonly string[] = [],
): Promise<{ name: string; oid: string }[] | undefined> {
  if (!prefix.endsWith('/') || !refName(prefix.slice(0, -1)) || !exact.every(refName)) return undefined;
  if (!refsAreFiles(commonDir)) return undefined;
  try {
    // Loose refs first, then the packed file: a ref that `git pack-refs` moves meanwhile is in
    // one of the two reads (git writes the packed file before it deletes the loose one). Read
    // synchronously: a thousand small reads through the thread pool cost several times more.
    const loose = new Map<string, string>();
    looseUnder(commonDir, prefix.slice(0, -1), loose);
    for (const name of exact) looseRef(commonDir, name, loose);
    const packed = packedRefs(commonDir);
    const tips = new Map(loose);
    for (const [name, oid] of packed) {
      if (tips.has(name) || !(name.startsWith(prefix) || exact.includes(name))) continue;
      if (!refName(name)) throw new Unreadable(name);
      tips.set(name, oid);
    }
    return [...tips].map(([name, oid]) => ({ name, oid })).sort(byName);
  } catch (e) {
    if (e instanceof Unreadable) return undefined;
    throw e;
  }
}

/**
 * The id one ref holds, as git's files backend reads it (the loose file over the packed line);
 * null when neither has it, undefined: ask git.
 */
export function readRefFromFiles(commonDir: string, name: string): string | null | undefined {
  if (!refName(name) || !refsAreFiles(commonDir)) return undefined;
  try {
    const loose = new Map<string, string>();
    looseRef(commonDir, name, loose);
    return loose.get(name) ?? packedRefs(commonDir).get(name) ?? null;
  } catch (e) {
    if (e instanceof Unreadable) return undefined;
    throw e;
  }
}

/** Whether the repository keeps its refs in files at all (no reftable). */
function refsAreFiles(commonDir: string): boolean {
  try {
    readdirSync(join(commonDir, 'reftable'));
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function refName(name: string): boolean {
  if (!name.startsWith('refs/') || PER_WORKTREE.test(`${name}/`)) return false;
  return name.split('/').every((c) => COMPONENT.test(c) && !c.endsWith('.lock'));
}

function looseUnder(commonDir: string, dir: string, into: Map<string, string>): void {
  let entries;
  try {
    entries = readdirSync(join(commonDir, dir), { withFileTypes: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new Unreadable(dir);
    throw e;
  }
  for (const d of entries) {
    const name = `${dir}/${d.name}`;
    if (!COMPONENT.test(d.name) || d.name.endsWith('.lock')) throw new Unreadable(name);
    if (d.isDirectory()) looseUnder(commonDir, name, into);
    else if (d.isFile()) into.set(name, oidOf(readFileSync(join(commonDir, name), 'latin1'), name));
    else throw new Unreadable(name);
  }
}

function looseRef(commonDir: string, name: string, into: Map<string, string>): void {
  try {
    into.set(name, oidOf(readFileSync(join(commonDir, name), 'latin1'), name));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    if (code === 'EISDIR') throw new Unreadable(name);
    throw e;
  }
}

/** A loose ref file's id; a symbolic ref or anything else is git's to read. */
function oidOf(text: string, name: string): string {
  const oid = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (!OID.test(oid)) throw new Unreadable(name);
  return oid;
}

function packedRefs(commonDir: string): Map<string, string> {
  let text: string;
  try {
    text = readFileSync(join(commonDir, 'packed-refs'), 'latin1');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw e;
  }
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# pack-refs with:')) continue;
    if (line.startsWith('^')) {
      if (!OID.test(line.slice(1))) throw new Unreadable('packed-refs');
      continue;
    }
    const sp = line.indexOf(' ');
    const oid = line.slice(0, sp);
    if (sp < 0 || !OID.test(oid)) throw new Unreadable('packed-refs');
    out.set(line.slice(sp + 1), oid);
  }
  return out;
}

/** git sorts refs by their bytes; abcd's ref names are ASCII, where that is the string order. */
function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
