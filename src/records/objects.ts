// A record as a git commit holding record.json, written without a work tree.
import { unlessSystemError } from '../core/best-effort.js';
import { RECORD_FILE } from './refs.js';
import type { Git } from '../git/git.js';
import { treeBody, writeLooseObject, type ObjectStore } from '../git/object-writer.js';

export interface Signature {
  name: string;
  email: string;
}

/**
 * Builds one record commit (a tree holding RECORD_FILE). With `store` (a clone whose objects
 * abcd may write as git would: ADR 0037) the three objects are written in-process, byte for
 * byte what `hash-object`/`mktree`/`commit-tree` write; otherwise with git's own plumbing,
 * three short processes (ADR 0003).
 */
export async function writeRecordCommit(o: {
  git: Git;
  store?: ObjectStore | undefined;
  content: string;
  parent: string | null;
  message: string;
  author: Signature;
  atMs: number;
}): Promise<string> {
  if (o.store && plainIdent(o.author.name) && plainIdent(o.author.email)) {
    try {
      return await writeInProcess(o.store, o);
    } catch (e) {
      // An object store abcd cannot write (permissions, a full disk): git says why, exit 9.
      // A bug is thrown on.
      unlessSystemError(undefined)(e);
    }
  }
  return writeWithPlumbing(o);
}

async function writeInProcess(
  store: ObjectStore,
  o: { content: string; parent: string | null; message: string; author: Signature; atMs: number },
) {
  const blob = await writeLooseObject(store, 'blob', Buffer.from(o.content));
  const tree = await writeLooseObject(store, 'tree', treeBody([{ mode: '100644', name: RECORD_FILE, oid: blob }]));
  const ident = `${o.author.name} <${o.author.email}> ${Math.floor(o.atMs / 1000)} +0000`;
  const head = `tree ${tree}\n${o.parent ? `parent ${o.parent}\n` : ''}author ${ident}\ncommitter ${ident}\n\n`;
  return writeLooseObject(store, 'commit', Buffer.from(head + o.message));
}

async function writeWithPlumbing(o: {
  git: Git;
  content: string;
  parent: string | null;
  message: string;
  author: Signature;
  atMs: number;
}) {
  const blob = await o.git.objects.hashObject(o.content);
  const tree = await o.git.objects.mktree([{ mode: '100644', type: 'blob', oid: blob, name: RECORD_FILE }]);
  const date = `@${Math.floor(o.atMs / 1000)} +0000`;
  const who = { GIT_AUTHOR_NAME: o.author.name, GIT_AUTHOR_EMAIL: o.author.email, GIT_AUTHOR_DATE: date };
  const env = { ...who, GIT_COMMITTER_NAME: o.author.name, GIT_COMMITTER_EMAIL: o.author.email, GIT_COMMITTER_DATE: date };
  return o.git.objects.mustCommitTree({ tree, parents: o.parent ? [o.parent] : [], message: o.message, env });
}

// git trims these from both ends of a name or email (ident.c, crud()).
const CRUD = new Set([...'.,:;<>"\\\'']);

/**
 * An identity git would write exactly as given: nothing it trims or drops. Anything else
 * goes through commit-tree, so git's own rewriting decides.
 */
export function plainIdent(s: string): boolean {
  if (s === '' || /[\0-\x20<>\x7f]/.test(s[0]!) || CRUD.has(s[0]!) || CRUD.has(s[s.length - 1]!)) return false;
  // eslint-disable-next-line no-control-regex -- git refuses control characters in an ident, and so does this
  if (/[\0-\x1f<>]/.test(s)) return false;
  return !/[\0-\x20]$/.test(s);
}
