// Serializes refreshes of the person's token pair across processes. GitHub invalidates the old
// refresh token the moment it is used, so two processes refreshing at once would leave one
// holding a dead pair. The lock is a file created with O_EXCL next to the token file; the
// holder re-reads the token file before refreshing, since the previous holder may have done it.
import { randomBytes } from '../../../core/builtins.js';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import type { Clock } from '../../../core/deps.js';
import { DeadlineReached } from '../../../core/refusals.js';

/** A lock older than this is abandoned: a refresh is two HTTP calls, each with a 15 s deadline. */
export const LOCK_STALE_MS = 60_000;
/** How long a process waits for another's refresh before refusing (every wait ends by a stated time); above the stale age. */
export const LOCK_WAIT_MS = 90_000;
// Refreshes take a few hundred ms; polling faster would only spin.
const LOCK_POLL_MS = 50;

interface LockOwner {
  pid: number;
  host: string;
  nonce: string;
  at: number;
}

export interface LockOptions {
  clock: Clock;
  /** This computer's name: a lock left by a dead process of this host is broken at once. */
  host: string;
  staleMs?: number;
  waitMs?: number;
}

/** Runs fn while holding `<tokenFile>.lock`. Throws DeadlineReached if it stays held. */
export async function withTokenLock<T>(tokenFile: string, o: LockOptions, fn: () => Promise<T>): Promise<T> {
  const lock = `${tokenFile}.lock`;
  const me: LockOwner = { pid: process.pid, host: o.host, nonce: randomBytes(8).toString('hex'), at: o.clock.now() };
  const waitMs = o.waitMs ?? LOCK_WAIT_MS;
  const until = o.clock.now() + waitMs;
  while (!(await tryCreate(lock, me))) {
    if (await breakIfStale(lock, { now: o.clock.now(), staleMs: o.staleMs ?? LOCK_STALE_MS, host: o.host })) continue;
    if (o.clock.now() >= until) {
      throw new DeadlineReached(
        `another abcd process kept the token refresh lock ${lock} for over ${waitMs / 1000} s. ` +
          `If no abcd is running, delete ${lock} and try again.`,
        { waitedOn: 'token-refresh-lock', path: lock, waitedMs: waitMs },
      );
    }
    await o.clock.sleep(LOCK_POLL_MS);
  }
  try {
    return await fn();
  } finally {
    await releaseIfMine(lock, me.nonce);
  }
}

async function tryCreate(lock: string, me: LockOwner): Promise<boolean> {
  let fh;
  try {
    fh = await open(lock, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    await fh.writeFile(JSON.stringify(me));
  } finally {
    await fh.close();
  }
  return true;
}

/**
 * Deletes a lock whose owner died (same host, pid gone) or that is older than staleMs, but only
 * if it still holds what was judged stale. The window between that check and the unlink is not
 * closed; the refresh itself covers it: a bad_refresh_token answer re-reads the token file.
 */
async function breakIfStale(lock: string, { now, staleMs, host }: { now: number; staleMs: number; host: string }): Promise<boolean> {
  const before = await readOwner(lock);
  if (before === undefined) return true; // gone (or being written): try again at once
  // The owner's own `at` (its clock) when readable; the file's mtime for a half-written lock.
  const age = now - (before.owner?.at ?? before.mtimeMs);
  const dead = before.owner !== undefined && before.owner.host === host && !alive(before.owner.pid);
  if (!dead && age < staleMs) return false;
  const again = await readOwner(lock);
  if (again?.text !== before.text) return true;
  try {
    await unlink(lock);
  } catch (e) {
    // Gone already: another waiter broke it first. Any other failure throws: the lock stays, and
    // the caller's loop would otherwise spin on it without ever reaching its deadline.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  return true;
}

async function readOwner(lock: string): Promise<{ text: string; owner?: LockOwner; mtimeMs: number } | undefined> {
  try {
    const [text, st] = await Promise.all([readFile(lock, 'utf8'), stat(lock)]);
    let owner: LockOwner | undefined;
    try {
      owner = JSON.parse(text) as LockOwner;
    } catch {
      // a single parse: the lock's JSON
      owner = undefined; // half-written by a live creator, or garbage: only its age can free it
    }
    return { text, owner, mtimeMs: st.mtimeMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the pid lives under another user, so it is alive.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Runs in a finally: a lock it cannot read or remove is left to go stale (LOCK_STALE_MS frees
// it), rather than replacing the refresh's own result or error with this one.
async function releaseIfMine(lock: string, nonce: string): Promise<void> {
  const cur = await readOwner(lock).catch(() => undefined); // cleanup: the lock may be gone or unreadable; it goes stale
  if (cur?.owner?.nonce === nonce) await unlink(lock).catch(() => undefined); // cleanup: the lock may already be gone
}
