import { expiresAt } from '../records/claim.js';
import { sameSession, type Holder } from '../records/holder.js';
import type { Settings } from '../records/settings.js';
import type { ClaimEntry } from './snapshot.js';

// Released claims and claims expired this long ago are pruned from the remote.
export const PRUNE_EXPIRED_AFTER_MS = 86_400_000;

/** How a reader may act on an item's claim right now. Pure: time and sightings passed in. */
export type ClaimStanding =
  | { kind: 'free'; lease: string | null; gen: number }
  | { kind: 'mine'; lease: string; gen: number }
  | { kind: 'held'; entry: ClaimEntry; expiresAt: number }
  | { kind: 'expired'; entry: ClaimEntry; takeableAt: number }
  | { kind: 'takeable'; entry: ClaimEntry };

/**
 * A takeover needs (a) expiry plus the delay passed on this clock and (b) this reader's
 * own sighting of the same tip at least the delay ago. Exclusion itself rests on the push.
 */
export function standing(
  entry: ClaimEntry | undefined,
  me: Holder,
  now: number,
  settings: Settings,
  firstSeenAt: number | undefined,
): ClaimStanding {
  if (!entry) return { kind: 'free', lease: null, gen: 0 };
  const c = entry.claim;
  if (c.state !== 'held') return { kind: 'free', lease: entry.tip, gen: c.gen + 1 };
  if (sameSession(c.holder, me)) return { kind: 'mine', lease: entry.tip, gen: c.gen + 1 };
  const exp = expiresAt(c);
  if (now < exp) return { kind: 'held', entry, expiresAt: exp };
  const takeableAt = Math.max(exp + settings.takeoverDelay, (firstSeenAt ?? now) + settings.takeoverDelay);
  return now >= takeableAt ? { kind: 'takeable', entry } : { kind: 'expired', entry, takeableAt };
}

/** Whether a claim record is due for pruning (DESIGN.md "Claim states"). */
export function isPrunable(entry: ClaimEntry, now: number, settings: Settings): boolean {
  const c = entry.claim;
  if (c.state === 'released') return true;
  if (c.state === 'done') return now - c.at > settings.doneRetention;
  return now - expiresAt(c) > PRUNE_EXPIRED_AFTER_MS;
}
