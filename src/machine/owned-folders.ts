// Folders named after the process that made them. A kill -9 runs no cleanup, so whatever a
// process keeps on disk while it works is named `<pid>-<start>-<rest>`, the start being the
// kernel's start time of that pid (a pid alone is reused; gate/process.ts). A later process
// then tells a dead owner's leftovers from a live one's by the name alone, and removes only
// the first. Without /proc a pid that exists counts as alive: the folder stays (fails safe).
import { chmod, lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { unlessSystemError } from '../core/best-effort.js';
import { isProcessAlive, readStartTime, type ProcessId } from './gate/process.js';

/** This process as a folder's name carries it: `<pid>-<start>`, start `x` where the system does not tell it. */
export const SELF_NAME = `${process.pid}-${readStartTime(process.pid) ?? 'x'}`;

// A lane cycle's folder in the system's temporary directory (its worktree, HOME, mailbox) and
// every folder made beside it (`<cycle>-host-…`) start with this.
const CYCLE_PREFIX = 'abcd-lane-';

/** The process a folder named `<prefix><pid>-<start>-<rest>` belongs to, or undefined for any other name. */
export function ownerOf(name: string, prefix = ''): ProcessId | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const m = /^(\d+)-(\d+|x)-./.exec(name.slice(prefix.length));
  if (!m) return undefined;
  return { pid: Number(m[1]), start: m[2] === 'x' ? null : m[2]! };
}

/**
 * Removes each entry of `root` named after a process (`<prefix><pid>-<start>-…`) that no longer
 * runs, with `remove`. Best effort: a folder that cannot be removed (another user's) stays,
 * and nothing here throws but a bug in listing `root`. Returns the names it removed.
 */
export async function pruneDeadOwners(root: string, prefix: string, remove: (path: string) => Promise<void>): Promise<string[]> {
  // No such folder yet, or one this user cannot list: nothing to prune.
  const names = await readdir(root).catch(unlessSystemError([] as string[]));
  const removed: string[] = [];
  for (const name of names) {
    const owner = ownerOf(name, prefix);
    if (!owner || isProcessAlive(owner)) continue;
    try {
      await remove(join(root, name));
      removed.push(name);
    } catch {
      // best effort: the caller's removal may refuse (another user's folder, git refusing, a run
      // of another pid space) or find it gone already; the entry stays and the next sweep tries again
    }
  }
  return removed;
}

/** A fresh cycle folder under `tmpDir`, named after this process (mode 0700, as mkdtemp makes it). */
export function makeCycleFolder(tmpDir: string): Promise<string> {
  return mkdtemp(join(tmpDir, `${CYCLE_PREFIX}${SELF_NAME}-`));
}

/** Removes the cycle folders in `tmpDir` whose lane process is gone (a drain killed with -9). */
export function pruneDeadCycleFolders(tmpDir: string): Promise<string[]> {
  return pruneDeadOwners(tmpDir, CYCLE_PREFIX, removeTree);
}

/**
 * Removes a folder and everything in it. An agent may have left folders without write
 * permission (chmod -R a-w), which rm alone cannot empty: those are made writable again,
 * never following a symlink, and the removal tried once more.
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (e) {
    // A folder rm could not empty (no write permission): made writable below; a bug is thrown on.
    unlessSystemError(undefined)(e);
    await makeWritable(path);
    await rm(path, { recursive: true, force: true });
  }
}

async function makeWritable(path: string): Promise<void> {
  // Gone already, or not this user's to change: the rm after it says what is left.
  const st = await lstat(path).catch(unlessSystemError(undefined));
  if (!st?.isDirectory()) return;
  await chmod(path, 0o700).catch(unlessSystemError(undefined));
  for (const name of await readdir(path).catch(unlessSystemError([] as string[]))) await makeWritable(join(path, name));
}
