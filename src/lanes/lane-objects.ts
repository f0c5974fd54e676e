// The object store an agent's repository borrows from: a bare repository of abcd's under the
// clone's git dir that holds only what main's commits reach, never the clone's own store,
// which also holds the person's unpushed commits, stashes and dropped work. Its objects come
// from the clone by commit id: everything a commit the remote's main had reaches is on the
// remote, so the store holds nothing the remote does not (ADR 0060).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Env } from '../core/deps.js';
import { Git } from '../git/git.js';

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

// The store's own config: abcd's, never the person's repository config; git may repack it
// (maintenance --auto after a fetch) so a long-lived clone does not pile up loose objects.
const CONFIG = '[core]\n\trepositoryformatversion = 0\n\tbare = true\n[fetch]\n\twriteFetchHead = false\n';

/** The store's git dir for a clone (one per clone, shared by its lanes and runs). */
export function laneStoreDir(commonDir: string): string {
  return join(commonDir, 'abcd', 'lane-objects');
}

/**
 * Makes sure the lane store holds `runHead` and all it reaches, fetching it from the clone
 * when it does not yet (a process tree only when main moved since the last cycle); returns
 * the store's objects folder, the one the agent's repository names in its alternates.
 */
export async function fillLaneStore(o: { env: Env; commonDir: string; runHead: string }): Promise<string> {
  if (!OID.test(o.runHead)) throw new Error(`cannot fill the lane store with ${o.runHead}: not a commit id`);
  const dir = laneStoreDir(o.commonDir);
  const objects = join(dir, 'objects');
  await layOut(dir);
  if ((await readMain(dir)) === o.runHead) return objects;
  const git = new Git(dir, o.env);
  // By id, so a local ref that moved since the read does not matter; forced, since lanes of one
  // run may fetch out of order (the ref is only the next fetch's starting point).
  const fetch = await git.run(
    ['-c', 'uploadpack.allowReachableSHA1InWant=true', 'fetch', '--no-tags', '--quiet', o.commonDir, `+${o.runHead}:refs/heads/main`],
    { env: { GIT_DIR: dir } },
  );
  // Two lanes fetching at once may race for the ref; the objects are what matters.
  if (fetch.exitCode !== 0) await git.must(['cat-file', '-e', `${o.runHead}^{commit}`], { env: { GIT_DIR: dir } });
  return objects;
}

/** What `git init --bare` would lay out, written directly and idempotently (lanes share the store). */
async function layOut(dir: string): Promise<void> {
  await Promise.all([
    mkdir(join(dir, 'objects/info'), { recursive: true }),
    mkdir(join(dir, 'objects/pack'), { recursive: true }),
    mkdir(join(dir, 'refs/heads'), { recursive: true }),
  ]);
  await Promise.all([writeOnce(join(dir, 'config'), CONFIG), writeOnce(join(dir, 'HEAD'), 'ref: refs/heads/main\n')]);
}

async function writeOnce(path: string, text: string): Promise<void> {
  await writeFile(path, text, { flag: 'wx' }).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'EEXIST') throw e;
  });
}

/**
 * The commit the store's main names, read as a file (packed away: unknown, so a fetch runs).
 * git moves the ref only once a fetch has every object, unlike the objects themselves, which a
 * fetch in flight writes one by one.
 */
async function readMain(dir: string): Promise<string | undefined> {
  return (await readFile(join(dir, 'refs/heads/main'), 'utf8').catch(() => '')).trim() || undefined;
}

/** GIT_ALTERNATE_OBJECT_DIRECTORIES for these folders: git splits on ':', and reads a C-quoted entry whole. */
export function alternatesList(dirs: readonly string[]): string {
  return dirs.map((d) => (/[:"\\]/.test(d) ? `"${d.replace(/[\\"]/g, (c) => `\\${c}`)}"` : d)).join(':');
}
