// Catch handlers for a step whose failure the caller can live with. Each names the failure it
// expects and throws anything else on, so a bug (a TypeError, a wrong argument) is never
// swallowed as "best effort".
import { isRefusal } from './refusals.js';

/**
 * For a step that talks to the remote or reads a record: a refusal (the remote went away, a
 * record refused) becomes `fallback`; anything else is thrown on.
 */
export function unlessRefusal<T>(fallback: T): (e: unknown) => T {
  return (e) => {
    if (isRefusal(e)) return fallback;
    throw e;
  };
}

/** For a read of a file that may not be there: a missing file or folder becomes `fallback`; anything else is thrown on. */
export function unlessMissing<T>(fallback: T): (e: unknown) => T {
  return (e) => {
    if (e instanceof Error && 'code' in e && (e.code === 'ENOENT' || e.code === 'ENOTDIR')) return fallback;
    throw e;
  };
}

/**
 * For a write of this computer's own memory (a cache, a mark) that the next run can do without:
 * a failure of the system call (a full disk, a read-only or vanished folder: an error with a
 * code) becomes `fallback`; a bug (a TypeError, no code) is thrown on.
 */
export function unlessSystemError<T>(fallback: T): (e: unknown) => T {
  return (e) => {
    if (e instanceof Error && 'code' in e && typeof e.code === 'string' && 'syscall' in e) return fallback;
    throw e;
  };
}

/** For a step that reads the remote, then keeps what it read in a file: a refusal or a failed system call becomes `fallback`. */
export function unlessRefusalOrSystemError<T>(fallback: T): (e: unknown) => T {
  return (e) => (isRefusal(e) ? fallback : unlessSystemError(fallback)(e));
}
