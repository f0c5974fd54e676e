import { expiresAt } from '../../records/claim.js';
import { sameSession } from '../../records/holder.js';
import { claimRef, classifyRef } from '../../records/refs.js';
import type { QueueEntry, Snapshot } from '../snapshot.js';

/** The queue's fairness order: first enqueued first, ties broken by the item key. */
export function queueOrder(entries: Iterable<QueueEntry>): QueueEntry[] {
  return [...entries].sort((a, b) => a.entry.at - b.entry.at || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
}

/**
 * An entry is alive while its holder still holds the item's claim and the claim is not past
 * expiry plus the takeover delay (the same grace a takeover gives, so modest clock skew does
 * not kill a live entry). A dead entry is skipped, never waited on. An entry whose claim this
 * abcd cannot read counts as alive: a reader never acts on what it cannot read.
 */
export function isAlive(q: QueueEntry, snap: Snapshot, now: number): boolean {
  const item = classifyRef(q.ref)?.item;
  if (!item) return true;
  const ref = claimRef(item);
  if (snap.refused.has(ref)) return true;
  const claim = snap.claims.get(ref);
  if (!claim) return false;
  const c = claim.claim;
  return c.state === 'held' && sameSession(c.holder, q.entry.holder) && now < expiresAt(c) + snap.settings.takeoverDelay;
}

export type Turn = { kind: 'mine' } | { kind: 'behind'; ahead: QueueEntry; position: number } | { kind: 'gone' };

/** Whose turn it is for the entry at `myRef`, and which entries ahead of it are dead. */
export function turnOf(snap: Snapshot, myRef: string, now: number): { turn: Turn; dead: QueueEntry[] } {
  const dead: QueueEntry[] = [];
  const aheadAlive: QueueEntry[] = [];
  for (const q of queueOrder(snap.queue.values())) {
    if (q.ref === myRef) {
      const first = aheadAlive[0];
      return { turn: first ? { kind: 'behind', ahead: first, position: aheadAlive.length } : { kind: 'mine' }, dead };
    }
    if (isAlive(q, snap, now)) aheadAlive.push(q);
    else dead.push(q);
  }
  return { turn: { kind: 'gone' }, dead };
}
