// Which items a lane may take now. Pure: the items, the live claims and the pending requests
// are passed in, so lanes (which add the pending slot) and `abcd items` agree on one rule.
import { formatHolder } from '../records/holder.js';
import { formatItem } from '../records/item.js';
import type { ClaimEntry, PendingEntry } from '../repo/snapshot.js';
import type { ClockView } from '../repo/clock-view.js';
import { expiryOnThisClock, isLive } from '../claims/rules.js';
import type { ItemDoc } from './source.js';

/** A live claim on an item: who holds it and until when (this reader's clock, corrected). */
export interface LiveClaim {
  holder: string;
  expiresAt: number;
}

/** Canonical item key → its live claim. Items with no entry are free. */
export type LiveClaims = ReadonlyMap<string, LiveClaim>;

/** Canonical item keys with a pending build request (the item's pending slot). */
export type PendingSet = ReadonlySet<string>;

/** Canonical keys of done items someone reopened: only these are work again. */
export type ReopenedSet = ReadonlySet<string>;

const NONE_REOPENED: ReopenedSet = new Set();

/** Canonical keys of items whose lane work waits for the person's review (ADR 0103). */
export type ReviewSet = ReadonlySet<string>;

const NONE_REVIEWING: ReviewSet = new Set();

export type Readiness =
  | { kind: 'held'; holder: string; expiresAt: number }
  | { kind: 'needs-review' }
  | { kind: 'pending' }
  | { kind: 'done' }
  | { kind: 'blocked'; by: string[] }
  | { kind: 'ready' };

/**
 * The claims that hold their item now (claims/rules.ts isLive: a fast clock does not free one
 * early). An expired claim holds nothing here; whether it may be taken over is `standing`'s rule.
 */
export function liveClaims(entries: Iterable<ClaimEntry>, now: number, clock: ClockView): Map<string, LiveClaim> {
  const out = new Map<string, LiveClaim>();
  for (const e of entries) {
    if (isLive(e.claim, now, clock))
      out.set(e.claim.item, { holder: formatHolder(e.claim.holder), expiresAt: expiryOnThisClock(e.claim, clock) });
  }
  return out;
}

/**
 * The items whose claim was reopened after they landed (`abcd reserve --reopen`): a held claim
 * that keeps where the item landed. Its holder may let it lapse; the item is work until then.
 */
export function reopenedItems(entries: Iterable<ClaimEntry>): Set<string> {
  const out = new Set<string>();
  for (const e of entries) if (e.claim.state === 'held' && e.claim.landed) out.add(e.claim.item);
  return out;
}

/**
 * The items a lane left for the person's review: a released claim naming the run whose work
 * touched protected paths. No lane takes them until the person lands, reserves or releases them.
 */
export function reviewingItems(entries: Iterable<ClaimEntry>): Set<string> {
  const out = new Set<string>();
  for (const e of entries) if (e.claim.state === 'released' && e.claim.review) out.add(e.claim.item);
  return out;
}

/**
 * The done items whose accepted pending slot was written before the item landed: a follow-up
 * asked of the work in flight, which the landing did not answer, so it stays work. A slot
 * written after the landing is stale and waits for a reopen like a steer. The two times come
 * from two writers' clocks; a skew between them only moves which side a request made within
 * it falls on.
 */
export function followUpsOfLanding(claims: Iterable<ClaimEntry>, slots: Iterable<PendingEntry>, accepted: PendingSet): Set<string> {
  const landedAt = new Map<string, number>();
  for (const e of claims) if (e.claim.state === 'done') landedAt.set(e.claim.item, e.claim.at);
  const out = new Set<string>();
  for (const p of slots) {
    const at = landedAt.get(p.item);
    if (at !== undefined && accepted.has(p.item) && p.request.at < at) out.add(p.item);
  }
  return out;
}

/**
 * One item's readiness. A live claim comes first (another lane has it); then done: a steer
 * or pending request left on a landed item waits until someone reopens it, or a stale request
 * would build and land the item a second time; then a pending request, which makes even a
 * blocked item work (the follow-up reconciles the item as it is on main); then dependencies
 * that are not done (a dependency missing from `byKey`, e.g. a refused file, counts as not done).
 */
export function readinessOf(
  item: ItemDoc,
  byKey: ReadonlyMap<string, ItemDoc>,
  claims: LiveClaims,
  pending: PendingSet,
  reopened: ReopenedSet = NONE_REOPENED,
  reviewing: ReviewSet = NONE_REVIEWING,
): Readiness {
  const key = formatItem(item.key);
  const claim = claims.get(key);
  if (claim) return { kind: 'held', holder: claim.holder, expiresAt: claim.expiresAt };
  if (item.status === 'done' && !reopened.has(key)) return { kind: 'done' };
  // Before a pending request: the work answering it waits for the person, and would be redone.
  if (reviewing.has(key)) return { kind: 'needs-review' };
  if (pending.has(key)) return { kind: 'pending' };
  if (item.status === 'done') return { kind: 'ready' };
  const by = item.dependsOn.filter((d) => byKey.get(d)?.status !== 'done');
  return by.length ? { kind: 'blocked', by } : { kind: 'ready' };
}

/**
 * The items a lane may take now, in the order to take them: pending requests first (someone
 * is waiting on them), then items other items wait on (dependencies first), then by priority
 * (high, normal, low), then by the priority label (items.github.priority; none counts
 * as last), then the oldest (addedAt; unknown counts as newest), then by key.
 * A lane passes `claims` without its own claim to see the items it holds as work.
 */
export function actionable(
  items: readonly ItemDoc[],
  claims: LiveClaims,
  pending: PendingSet,
  reopened: ReopenedSet = NONE_REOPENED,
  reviewing: ReviewSet = NONE_REVIEWING,
): ItemDoc[] {
  const byKey = new Map(items.map((i) => [formatItem(i.key), i] as const));
  const waitedOn = new Map<string, number>();
  for (const i of items) if (i.status !== 'done') for (const d of i.dependsOn) waitedOn.set(d, (waitedOn.get(d) ?? 0) + 1);
  const rank = (i: ItemDoc) => (pending.has(formatItem(i.key)) ? 0 : waitedOn.has(formatItem(i.key)) ? 1 : 2);
  return items
    .filter((i) => {
      const r = readinessOf(i, byKey, claims, pending, reopened, reviewing).kind;
      return r === 'ready' || r === 'pending';
    })
    .sort(
      (a, b) =>
        rank(a) - rank(b) ||
        urgency(a) - urgency(b) ||
        (a.labelRank ?? Number.MAX_SAFE_INTEGER) - (b.labelRank ?? Number.MAX_SAFE_INTEGER) ||
        age(a) - age(b) ||
        (formatItem(a.key) < formatItem(b.key) ? -1 : formatItem(a.key) > formatItem(b.key) ? 1 : 0),
    );
}

function urgency(i: ItemDoc): number {
  return i.priority === 'high' ? 0 : i.priority === 'low' ? 2 : 1;
}

function age(i: ItemDoc): number {
  return i.addedAt ?? Number.MAX_SAFE_INTEGER;
}
