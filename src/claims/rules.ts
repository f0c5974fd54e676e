// Claim liveness as named predicates: standing, takeable, due for pruning, by the judged clock.
import type { Claim } from '../records/claim.js';
import { expiresAt, type Timed } from '../records/timed.js';
import { sameSession, type Holder } from '../records/holder.js';
import type { Settings } from '../records/settings.js';
import type { SkewBracket } from '../repo/clock-skew.js';
import { UNKNOWN_CLOCK, type ClockView } from '../repo/clock-view.js';
import type { ClaimEntry } from '../repo/snapshot.js';

// Released claims and claims expired this long ago are pruned from the remote.
export const PRUNE_EXPIRED_AFTER_MS = 86_400_000;

/** How a reader may act on an item's claim right now. Pure: time, sightings and clock passed in. */
export type ClaimStanding =
  | { kind: 'free'; lease: string | null; gen: number }
  | { kind: 'mine'; lease: string; gen: number }
  | { kind: 'held'; entry: ClaimEntry; expiresAt: number }
  | { kind: 'expired'; entry: ClaimEntry; takeableAt: number }
  | { kind: 'takeable'; entry: ClaimEntry }
  /** Held by another session and this clock disagrees with the writers' past the bound. */
  | { kind: 'clock-unsafe'; entry: ClaimEntry; bracket: SkewBracket };

/**
 * A takeover needs this reader's own sighting of the same tip for the delay, and then either
 * (a) expiry plus the delay passed on this clock corrected by its measured offset to the
 * holder's clock, or (b) without such a measure, its own watching of the tip for ttl plus the
 * delay (a lower bound on real time since the write, whatever the clocks say). docs/guarantees.md,
 * "Clocks", states the guarantee. Exclusion itself rests on the push.
 */
export function standing(
  entry: ClaimEntry | undefined,
  me: Holder,
  now: number,
  settings: Settings,
  firstSeenAt: number | undefined,
  clock: ClockView = UNKNOWN_CLOCK,
): ClaimStanding {
  if (!entry) return { kind: 'free', lease: null, gen: 0 };
  const c = entry.claim;
  if (c.state !== 'held') return { kind: 'free', lease: entry.tip, gen: c.gen + 1 };
  if (sameSession(c.holder, me)) return { kind: 'mine', lease: entry.tip, gen: c.gen + 1 };
  if (clock.unsafe) return { kind: 'clock-unsafe', entry, bracket: clock.unsafe };
  const delay = settings.takeoverDelay;
  const seen = firstSeenAt ?? now;
  const byWatch = seen + c.ttl + delay;
  const ahead = clock.aheadAtMost(c.holder);
  // Expiry as this clock would read it; without a measure, the raw one only names a time to look again.
  const exp = expiryOnThisClock(c, clock);
  const takeableAt = ahead === undefined ? byWatch : Math.min(byWatch, Math.max(exp + delay, seen + delay));
  if (now >= takeableAt) return { kind: 'takeable', entry };
  // Held while unexpired on both readings; past either, "expired" says when it may be taken.
  if (now < exp && now < expiresAt(c)) return { kind: 'held', entry, expiresAt: exp };
  return { kind: 'expired', entry, takeableAt };
}

/**
 * When `c` expires as this reader's clock reads it: the writer's expiry moved by the most this
 * clock runs ahead of the holder's when that was measured, else the expiry as written.
 */
export function expiryOnThisClock(c: Timed & { readonly holder: Holder }, clock: ClockView): number {
  return expiresAt(c) + (clock.aheadAtMost(c.holder) ?? 0);
}

/**
 * Whether a record is past its expiry plus the takeover delay on this clock, corrected: a
 * queue entry whose claim lapsed (skipped, not waited on), an announcement due for pruning.
 * The delay covers a writer whose clock is behind what was measured.
 */
export function isLapsed(r: Timed & { readonly holder: Holder }, now: number, clock: ClockView, settings: Settings): boolean {
  return now >= expiryOnThisClock(r, clock) + settings.takeoverDelay;
}

/**
 * Whether a claim holds its item now: held, and not past its expiry on this clock corrected by
 * the measured offset (a fast clock does not free another's claim early). What may be done with
 * one that is not live is `standing`'s to say.
 */
export function isLive(c: Claim, now: number, clock: ClockView): boolean {
  return c.state === 'held' && now < expiryOnThisClock(c, clock);
}

/** The person's live claims other than `exceptRef`: what the reservation cap counts. */
export function liveReservations(
  claims: Iterable<ClaimEntry>,
  o: { person: string; exceptRef: string; now: number; clock: ClockView },
): ClaimEntry[] {
  return [...claims].filter((e) => e.ref !== o.exceptRef && e.claim.holder.person === o.person && isLive(e.claim, o.now, o.clock));
}

/** Whether a record could be due for pruning on this clock alone: a cheap first filter. */
export function isPrunable(entry: ClaimEntry, now: number, settings: Settings): boolean {
  const c = entry.claim;
  // Work waiting for the person's review is kept as long as landed work is remembered.
  if (c.state === 'released' && c.review) return now - c.at > settings.doneRetention;
  if (c.state === 'released') return true;
  if (c.state === 'done') return now - c.at > settings.doneRetention;
  return now - expiresAt(c) > PRUNE_EXPIRED_AFTER_MS;
}

/**
 * Whether a record is due for pruning with the clock judged (corrected for skew, or unsafe): a released
 * claim always; a done one once its retention passed by the corrected clock, or by this
 * clone's own watching of it; a held one once it is takeable and a day past expiry the same
 * way. Nothing clock-based while the clock is unsafe.
 */
export function isDue(o: {
  entry: ClaimEntry;
  me: Holder;
  now: number;
  settings: Settings;
  firstSeenAt: number | undefined;
  clock: ClockView;
}): boolean {
  const c = o.entry.claim;
  if (c.state === 'released' && !c.review) return true;
  if (o.clock.unsafe) return false;
  const ahead = o.clock.aheadAtMost(c.holder);
  const watched = o.now - (o.firstSeenAt ?? o.now);
  if (c.state === 'done' || c.state === 'released') {
    return ahead === undefined ? watched > o.settings.doneRetention : o.now - ahead - c.at > o.settings.doneRetention;
  }
  if (standing(o.entry, o.me, o.now, o.settings, o.firstSeenAt, o.clock).kind !== 'takeable') return false;
  return ahead === undefined ? watched > c.ttl + PRUNE_EXPIRED_AFTER_MS : o.now - ahead - expiresAt(c) > PRUNE_EXPIRED_AFTER_MS;
}
