// A queue entry's place: its rank, fixed when it is enqueued. Normal entries rank at their
// enqueue time; `high` ranks as if enqueued `land.priorityAge` earlier, `low` as if that much
// later, so a low entry is passed only by normal entries enqueued within priorityAge after it
// (and high ones within twice that): it never starves. No entry ranks ahead of the entries
// already under test when it is enqueued (the first `speculate` live ones), so a priority
// never reorders a stack being tested. The rank is written in the entry, so every reader
// orders the queue the same way.
import type { Priority } from '../../records/queue.js';
import type { QueueEntry } from '../../repo/snapshot.js';

export type { Priority };

// How far a priority moves an entry, unless `land.priorityAge` says otherwise.
export const DEFAULT_PRIORITY_AGE_MS = 10 * 60_000;

/** The order key of an entry: its rank, or its enqueue time (an entry from an abcd without ranks). */
export function entryRank(q: Pick<QueueEntry, 'entry'>): number {
  const rank = (q.entry as { rank?: unknown }).rank;
  return typeof rank === 'number' && Number.isSafeInteger(rank) && rank >= 0 ? rank : q.entry.at;
}

/**
 * The rank of an entry enqueued at `at`: moved by its priority, and never ahead of the entries
 * under test (`testing`: the first live entries in queue order, as the enqueuer read them).
 */
export function rankFor(o: { at: number; priority: Priority; ageMs: number; testing: readonly QueueEntry[] }): number {
  const shift = o.priority === 'high' ? -o.ageMs : o.priority === 'low' ? o.ageMs : 0;
  const behind = o.testing.reduce((m, q) => Math.max(m, entryRank(q) + 1), 0);
  return Math.max(0, o.at + shift, behind);
}
