// The land queue's order and each entry's state: who lands next.
import { sameSession } from '../../records/holder.js';
import { claimRef, classifyRef } from '../../records/refs.js';
import type { Settings } from '../../records/settings.js';
import type { ClaimEntry, QueueEntry, Snapshot } from '../../repo/snapshot.js';
import type { ClockView } from '../../repo/clock-view.js';
import { isLapsed } from '../../claims/rules.js';
import { entryRank } from './priority.js';

/** The queue's order: by rank (enqueue time moved by priority, priority.ts), ties broken by the item key. */
export function queueOrder(entries: Iterable<QueueEntry>): QueueEntry[] {
  return [...entries].sort((a, b) => entryRank(a) - entryRank(b) || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
}

/** The first `n` live entries in queue order: the ones under test (or about to be). */
export function liveHead(snap: Snapshot, n: number, now: number, clock: ClockView): QueueEntry[] {
  const out: QueueEntry[] = [];
  for (const q of queueOrder(snap.queue.values())) {
    if (out.length >= n) break;
    if (entryState(q, snap, now, clock) === 'alive') out.push(q);
  }
  return out;
}

/**
 * - `alive`: its holder holds the item's claim, not past expiry plus the takeover delay.
 * - `dead`: the claim is gone, released, done or another session's: pruned.
 * - `lapsed`: past expiry plus the delay on this clock (corrected by the offset measured to the
 *   holder's, claims/rules.ts expiryOnThisClock): skipped, and pruned only once the
 *   takeover rule with the measured clock agrees (prune-queue.ts), so a fast clock deletes
 *   nothing live.
 * - `unreadable`: the claim is a record this abcd refuses (corrupt, or newer): skipped and
 *   reported, never waited on (a record newer than this abcd is refused, not guessed at) and never deleted.
 * - `refused`: a batch's head judged it failed (its `verdict`) and its holder has not taken it out
 *   yet: never waited on, and left for the holder to read.
 */
export type EntryState = 'alive' | 'dead' | 'lapsed' | 'unreadable' | 'refused';

export function entryState(q: QueueEntry, snap: Snapshot, now: number, clock: ClockView): EntryState {
  const item = classifyRef(q.ref)?.item;
  if (!item) return 'unreadable';
  const ref = claimRef(item);
  if (snap.refused.has(ref)) return 'unreadable';
  const claim = snap.claims.get(ref);
  if (!claim) return 'dead';
  const c = claim.claim;
  if (c.state !== 'held' || !sameSession(c.holder, q.entry.holder)) return 'dead';
  if (isLapsed(c, now, clock, snap.settings)) return 'lapsed';
  return q.entry.verdict ? 'refused' : 'alive';
}

/** An entry ahead that no land waits on, and what a pruner needs to judge it. */
export interface DeadEntry {
  queue: QueueEntry;
  /** Set when only the clock says the claim lapsed: the pruner judges it with the takeover rule. */
  lapsed?: ClaimEntry;
  settings: Settings;
}

/** An entry skipped because its claim cannot be read, as land and status report it. */
export interface SkippedEntry {
  item: string;
  ref: string;
  claimRef: string;
  code: string;
  message: string;
}

export type Turn = { kind: 'mine' } | { kind: 'behind'; ahead: QueueEntry; position: number } | { kind: 'gone' };

/**
 * Whose turn it is for the entry at `myRef`, the live entries ahead of it in order, which
 * entries ahead are dead, which skipped.
 */
export function turnOf(
  snap: Snapshot,
  myRef: string,
  now: number,
  clock: ClockView,
): { turn: Turn; ahead: QueueEntry[]; dead: DeadEntry[]; skipped: SkippedEntry[] } {
  const dead: DeadEntry[] = [];
  const skipped: SkippedEntry[] = [];
  const aheadAlive: QueueEntry[] = [];
  for (const q of queueOrder(snap.queue.values())) {
    if (q.ref === myRef) {
      const first = aheadAlive[0];
      const turn: Turn = first ? { kind: 'behind', ahead: first, position: aheadAlive.length } : { kind: 'mine' };
      return { turn, ahead: aheadAlive, dead, skipped };
    }
    const state = entryState(q, snap, now, clock);
    if (state === 'alive') aheadAlive.push(q);
    else if (state === 'unreadable') skipped.push(skippedOf(q, snap));
    else if (state !== 'refused') {
      const claim = snap.claims.get(claimRef(classifyRef(q.ref)!.item!));
      dead.push({ queue: q, settings: snap.settings, ...(state === 'lapsed' && claim ? { lapsed: claim } : {}) });
    }
  }
  return { turn: { kind: 'gone' }, ahead: aheadAlive, dead, skipped };
}

export function skippedOf(q: QueueEntry, snap: Snapshot): SkippedEntry {
  const item = classifyRef(q.ref)?.item;
  const cref = item ? claimRef(item) : q.ref;
  const refusal = snap.refused.get(cref)?.refusal;
  return {
    item: q.item,
    ref: q.ref,
    claimRef: cref,
    code: refusal?.code ?? 'record-invalid',
    message: `skipped ${q.item}'s queue entry: its claim ${cref} cannot be read (${refusal?.code ?? 'unknown'}); it is neither waited on nor deleted`,
  };
}
