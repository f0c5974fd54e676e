// The gate's mutual exclusion: every change to state.json happens while holding it.
//
// The lock is the directory `lock/` holding exactly one file, `owner-<pid>-<start>-<nonce>`.
// To take it, a process prepares `stage-<pid>-<start>-<nonce>/` with its owner file inside
// and renames it onto `lock/`. rename(2) replaces a missing or EMPTY directory atomically and
// fails on a non-empty one, so exactly one process wins and the winner's name is in place
// from the first instant. To release, the owner deletes its own owner file; an empty `lock/`
// is free. A dead owner's file (pid + start time no longer running) is deleted by name by
// whoever finds it: the name says whose it is, so a slow cleaner can never delete the file
// of a later, live owner (the classic stale-lock race of "read owner, then unlink").
import { randomBytes } from '../../core/builtins.js';
import { chmodSync, mkdirSync, readdirSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LOCK_DIR, ownedName, parseOwnedName } from './paths.js';
import type { GateDeps, ProcessId } from './process.js';

// The lock is held for one read and one rename of a small file; a short poll is enough.
const LOCK_POLL_MS = 5;

export class LockTimeout extends Error {
  constructor(readonly owners: ProcessId[]) {
    super('the gate lock stayed held');
  }
}

/** Runs fn while holding the gate's lock. Throws LockTimeout if it is not free by `until`. */
export async function withGateLock<T>(dir: string, deps: GateDeps, until: number, fn: () => T): Promise<T> {
  const me: ProcessId = { pid: deps.pid, start: deps.startTime(deps.pid) };
  const nonce = randomBytes(6).toString('hex');
  const owner = ownedName('owner', me, nonce);
  const stage = join(dir, ownedName('stage', me, nonce));
  const lock = join(dir, LOCK_DIR);
  mkdirSync(stage);
  chmodSync(stage, 0o777); // another user's abcd must be able to clear our file if we die
  writeFileSync(join(stage, owner), '', { flag: 'wx', mode: 0o644 });
  try {
    for (;;) {
      try {
        renameSync(stage, lock);
        break;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
      }
      const owners = clearDeadOwners(lock, deps);
      if (owners.length === 0) continue; // freed: try again at once
      if (deps.clock.now() >= until) throw new LockTimeout(owners);
      await deps.clock.sleep(LOCK_POLL_MS);
    }
  } catch (e) {
    removeStage(stage, owner);
    throw e;
  }
  try {
    return fn();
  } finally {
    unlinkQuietly(join(lock, owner));
  }
}

/** Deletes owner files of dead processes (and anything else that is not an owner file). */
function clearDeadOwners(lock: string, deps: GateDeps): ProcessId[] {
  let names: string[];
  try {
    names = readdirSync(lock);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const live: ProcessId[] = [];
  for (const name of names) {
    const parsed = parseOwnedName(name);
    if (parsed?.kind === 'owner' && deps.isAlive(parsed.who)) live.push(parsed.who);
    else unlinkQuietly(join(lock, name));
  }
  return live;
}

function removeStage(stage: string, owner: string): void {
  unlinkQuietly(join(stage, owner));
  try {
    rmdirSync(stage);
  } catch {
    // cleanup: the stage may be renamed into place or gone already; a leftover is cleared as a dead process's stage.
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}
