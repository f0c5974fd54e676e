import { RECORD_FILE } from '../records/refs.js';

export interface Signature {
  name: string;
  email: string;
}

/**
 * Builds one record commit (a tree holding RECORD_FILE) in-process with isomorphic-git:
 * three loose objects without spawning git three times (ADR 0003). Loaded lazily: only
 * verbs that write pay for the import.
 */
export async function writeRecordCommit(o: {
  gitdir: string;
  content: string;
  parent: string | null;
  message: string;
  author: Signature;
  atMs: number;
}): Promise<string> {
  const [{ default: git }, { default: fs }] = await Promise.all([import('isomorphic-git'), import('node:fs')]);
  const blob = await git.writeBlob({ fs, gitdir: o.gitdir, blob: Buffer.from(o.content) });
  const tree = await git.writeTree({
    fs,
    gitdir: o.gitdir,
    tree: [{ mode: '100644', path: RECORD_FILE, oid: blob, type: 'blob' }],
  });
  const sig = { ...o.author, timestamp: Math.floor(o.atMs / 1000), timezoneOffset: 0 };
  return git.writeCommit({
    fs,
    gitdir: o.gitdir,
    commit: { message: o.message, tree, parent: o.parent ? [o.parent] : [], author: sig, committer: sig },
  });
}
