// The App's key, client secret and refresh token sit in files only their owner may touch.
// Every read checks the mode first and refuses (exit 7) rather than use a secret others could
// have read or swapped; every write goes to a 0600 temp file renamed into place, so a reader in
// another process sees the old file or the new one, never half of one.
import { randomBytes } from '../../../core/builtins.js';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { unlessSystemError } from '../../../core/best-effort.js';
import { UnsafeEnvironment } from '../../../core/refusals.js';

// Group and other bits: any of them means someone besides the owner may read, write or list.
const OTHERS_MASK = 0o077;

/** The uid that must own the files; undefined where the platform has none (Windows). */
function myUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/**
 * Refuses when the file or its directory is open to anyone but its owner, or owned by another
 * user. Returns false when the file does not exist (the caller decides whether that is fine).
 */
export async function assertPrivate(path: string, what: string): Promise<boolean> {
  const dir = dirname(path);
  await assertPrivateDir(dir);
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
  checkStat(path, what, st.mode, st.uid, 'chmod 600');
  return true;
}

/** Refuses when the directory holding secrets can be listed or written by others. */
export async function assertPrivateDir(dir: string): Promise<void> {
  let st;
  try {
    st = await stat(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  checkStat(dir, "abcd's config directory", st.mode, st.uid, 'chmod 700');
}

function checkStat(path: string, what: string, mode: number, uid: number, fix: string): void {
  const me = myUid();
  if (me !== undefined && uid !== me) {
    throw new UnsafeEnvironment(
      `${what} ${path} belongs to another user (uid ${uid}, not ${me}): abcd will not use a secret someone else controls. ` +
        'Move it into your own abcd config directory, or run "abcd setup-app" again.',
      { path, uid, expectedUid: me, reason: 'foreign-owner' },
    );
  }
  if ((mode & OTHERS_MASK) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(3, '0');
    throw new UnsafeEnvironment(
      `${what} ${path} has mode ${octal}: people other than its owner may read or change it. ` + `Fix it with: ${fix} ${path}`,
      { path, mode: octal, fix: `${fix} ${path}`, reason: 'open-mode' },
    );
  }
}

/** Reads a private file after checking it; undefined when it does not exist. */
export async function readPrivateText(path: string, what: string): Promise<string | undefined> {
  if (!(await assertPrivate(path, what))) return undefined;
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Creates the config directory 0700 (umask cannot widen it); refuses one that is open. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await assertPrivateDir(dir);
}

/**
 * Replaces path with text atomically: a 0600 temp file beside it, flushed, then renamed over
 * it. A crash leaves the old file intact and at worst a stray temp file, never a torn token.
 */
export async function writePrivateAtomic(path: string, text: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, path);
  } catch (e) {
    // The rename's error is the one to report; a temp file left behind has a unique name and harms nothing.
    await unlink(tmp).catch(() => undefined); // cleanup: the temp file may already be gone
    throw e;
  }
  await syncDir(dirname(path));
}

// Makes the rename itself durable; best effort, as some filesystems refuse fsync on a directory.
async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch (e) {
    // Fails open on a refused system call only: the data is written; only its survival of a
    // power cut is less certain. A bug (no error code) is thrown on.
    unlessSystemError(undefined)(e);
  }
}
