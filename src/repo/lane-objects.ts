// The object store an agent's repository borrows from: a bare repository of abcd's under the
// clone's git dir that holds only what main's commits reach, never the clone's own store,
// which also holds the person's unpushed commits, stashes and dropped work. Its objects come
// from the clone by commit id (what the run head reaches): everything a commit the remote's
// main had reaches is on the remote, so the store holds nothing the remote does not (ADR 0060).
import { randomBytes } from '../core/builtins.js';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unlessMissing } from '../core/best-effort.js';
import type { Env } from '../core/deps.js';
import { Git } from '../git/git.js';

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

// The store's own config: abcd's, never the person's repository config.
const CONFIG = '[core]\n\trepositoryformatversion = 0\n\tbare = true\n[fetch]\n\twriteFetchHead = false\n';

/** The store's git dir for a clone (one per clone, shared by its lanes and runs). */
export function laneStoreDir(commonDir: string): string {
  return join(commonDir, 'abcd', 'lane-objects');
}

/**
 * Makes sure the lane store holds `runHead` and all it reaches, copying from the clone what
 * it does not hold yet; returns the store's objects folder, the one the agent's repository
 * names in its alternates. Nothing runs when main did not move since the last cycle; when it
 * did, two processes (ADR 0060).
 */
export async function fillLaneStore(o: { env: Env; commonDir: string; runHead: string }): Promise<string> {
  if (!OID.test(o.runHead)) throw new Error(`cannot fill the lane store with ${o.runHead}: not a commit id`);
  const dir = laneStoreDir(o.commonDir);
  const objects = join(dir, 'objects');
  await layOut(dir);
  const had = await readMain(dir);
  if (had === o.runHead) return objects;
  const store = new Git(dir, o.env);
  const storeEnv = { GIT_DIR: dir };
  if (!had || !(await copyNewObjects(o, store, had))) {
    // The first fill (main's whole history, streamed), or a store whose main the clone no
    // longer has: a fetch by id negotiates what is missing.
    // Two lanes filling at once race for the ref, and the loser may look before the winner's
    // objects are in: it fetches again (negotiating what is there) until it holds the commit.
    for (let attempt = 1; ; attempt++) {
      const fetch = await store.transport.fetch(o.commonDir, [`+${o.runHead}:refs/heads/main`], {
        anyReachableCommit: true,
        env: storeEnv,
        timeoutMs: FIRST_FILL_TIMEOUT_MS,
      });
      if (fetch.exitCode === 0) return objects;
      if (await store.objects.hasCommit(o.runHead, { env: storeEnv })) return objects;
      if (attempt >= FILL_TRIES) break;
      await new Promise((res) => setTimeout(res, 200 * attempt));
    }
    await store.objects.mustHaveCommit(o.runHead, { env: storeEnv });
    return objects;
  }
  // After the objects, as a fetch moves its ref: a reader that sees the ref finds them all.
  const tmp = join(dir, `main.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(tmp, `${o.runHead}\n`);
  await rename(tmp, join(dir, 'refs/heads/main'));
  return objects;
}

// The first fill copies main's whole history: a large repository's takes minutes, not hours.
const FIRST_FILL_TIMEOUT_MS = 10 * 60_000;
// Fetches a fill tries when another lane's fill holds the ref (see fillLaneStore).
const FILL_TRIES = 3;
// Past this many objects a copy is kept as one pack (git's own fetch.unpackLimit); below it,
// loose objects, as a fetch would leave them.
const UNPACK_LIMIT = 100;

/**
 * What main gained since the store's last fill, packed in the clone (only what `runHead`
 * reaches and `had` does not) and unpacked into the store. False when the clone cannot
 * pack it (it no longer has `had`): the caller fetches instead.
 */
async function copyNewObjects(o: { env: Env; commonDir: string; runHead: string }, store: Git, had: string): Promise<boolean> {
  const clone = new Git(o.commonDir, o.env);
  const pack = await clone.packs.packObjects([o.runHead], [had], { env: { GIT_DIR: o.commonDir } });
  if (!pack.ok || pack.value.length < 12) return false;
  const count = pack.value.readUInt32BE(8);
  const into = { env: { GIT_DIR: store.dir } };
  await (count > UNPACK_LIMIT ? store.packs.mustIndexPack(pack.value, into) : store.packs.unpack(pack.value, into));
  return true;
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
  return (await readFile(join(dir, 'refs/heads/main'), 'utf8').catch(unlessMissing(''))).trim() || undefined;
}

/** GIT_ALTERNATE_OBJECT_DIRECTORIES for these folders: git splits on ':', and reads a C-quoted entry whole. */
export function alternatesList(dirs: readonly string[]): string {
  return dirs.map((d) => (/[:"\\]/.test(d) ? `"${d.replace(/[\\"]/g, (c) => `\\${c}`)}"` : d)).join(':');
}
