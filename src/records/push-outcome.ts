// Judging a push by re-reading the remote: landed, refused, or unknown.
import type { RefUpdate } from './store-types.js';

/** Where a push's refs stand when read after the push, measured against what it sent. */
export type PushSeen =
  | { kind: 'landed' }
  /** Every leased ref still at its lease: the push changed nothing (atomic: all or nothing). */
  | { kind: 'before' }
  /** A leased ref is at neither its lease nor what was sent: someone else wrote it. */
  | { kind: 'moved'; tips: Map<string, string | null> }
  /** Refs where the push leaves no verdict (an unleased, non-atomic update). */
  | { kind: 'mixed' };

/** Compares the remote's tips with a push's updates. */
export function judgePush(updates: readonly RefUpdate[], tips: Map<string, string | null>, atomic: boolean): PushSeen {
  const at = (ref: string) => tips.get(ref) ?? null;
  if (updates.every((u) => at(u.ref) === u.newOid)) return { kind: 'landed' };
  const leased = updates.filter((u) => u.lease !== undefined);
  // Without an atomic push, only a push whose every ref is leased can be judged ref by ref.
  const judgeable = atomic ? leased.length > 0 : leased.length === updates.length;
  if (!judgeable) return { kind: 'mixed' };
  if (leased.every((u) => at(u.ref) === u.lease)) return { kind: 'before' };
  if (atomic && leased.some((u) => at(u.ref) !== u.lease && at(u.ref) !== u.newOid)) return { kind: 'moved', tips };
  return { kind: 'mixed' };
}

// After a push whose answer was lost, the remote is read again at these delays: a server
// still applying the push when the first read comes shows it at the next one. Two reads in a
// row that see the refs as before settle "unchanged".
export const REREAD_DELAYS_MS = [0, 300, 900] as const;
export const BEFORE_READS_TO_SETTLE = 2;
