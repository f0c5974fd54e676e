// Batches (land.batch, ADR 0096): the live queue, read in order, falls into groups. A group is
// announced when its head has written the entries it tests with into its own entry (`batch`,
// each member named by its record's tip); until then the next `land.batch` free entries are the
// group it will most likely take. Every land works the groups out alike from the same records,
// so there is no coordinator: each entry only asks which group it is in and whether it leads it.
import type { ClockView } from '../../repo/clock-view.js';
import type { QueueEntry, Snapshot } from '../../repo/snapshot.js';
import { entryState, queueOrder } from '../queue/queue-order.js';

export interface Group {
  head: QueueEntry;
  /** The live entries it tests with, in queue order (the announced ones, or the likely ones). */
  members: QueueEntry[];
  announced: boolean;
}

/**
 * What an entry does next in a batched queue:
 * - `follow`: it is a member of the announced group of `head`, which tests and lands it;
 * - `lead`: it heads its group and may test now, on the groups `ahead` (all announced, fewer
 *   than `land.speculate`), with `members` (its announced ones, or the free entries to take);
 * - `wait`: a group ahead is not announced yet, or as many as `speculate` are ahead, or it is the
 *   likely member of a group not announced yet;
 * - `gone`: its entry is not in the queue as live.
 */
export type BatchTurn =
  | { kind: 'follow'; head: QueueEntry }
  | { kind: 'lead'; ahead: Group[]; members: QueueEntry[]; announced: boolean }
  | { kind: 'wait'; first: QueueEntry; position: number }
  | { kind: 'gone' };

/**
 * The live queue as groups, in order. `stale`: heads whose batch lease ran out as this clone
 * watched (batch-lease.ts): left out, so their members take their turn again.
 */
export function groupsOf(snap: Snapshot, now: number, clock: ClockView, size: number, stale: ReadonlySet<string> = new Set()): Group[] {
  const live = queueOrder(snap.queue.values()).filter((q) => !stale.has(q.ref) && entryState(q, snap, now, clock) === 'alive');
  const byRef = new Map(live.map((q) => [q.ref, q]));
  const taken = new Set<string>();
  const groups: Group[] = [];
  for (const [k, q] of live.entries()) {
    if (taken.has(q.ref)) continue;
    taken.add(q.ref);
    const listed = q.entry.batch?.members;
    if (listed) {
      // Only the members still live at the tip it tested: one that re-enqueued or left is not in it.
      const members = listed.flatMap((m) => {
        const e = byRef.get(m.ref);
        return e && e.tip === m.tip && !taken.has(e.ref) ? [e] : [];
      });
      for (const m of members) taken.add(m.ref);
      groups.push({ head: q, members, announced: true });
      continue;
    }
    const members: QueueEntry[] = [];
    // An entry landing with --keep tests alone: its claim stays its own.
    if (!q.entry.keep) {
      for (const e of live.slice(k + 1)) {
        if (members.length >= size - 1 || e.entry.batch) break;
        if (taken.has(e.ref) || e.entry.keep) continue;
        members.push(e);
        taken.add(e.ref);
      }
    }
    groups.push({ head: q, members, announced: false });
  }
  return groups;
}

/** Which group the entry at `myRef` is in, and what it does next (BatchTurn). */
export function batchTurnOf(groups: readonly Group[], myRef: string, speculate: number): BatchTurn {
  const at = groups.findIndex((g) => g.head.ref === myRef || g.members.some((m) => m.ref === myRef));
  if (at < 0) return { kind: 'gone' };
  const g = groups[at]!;
  const ahead = groups.slice(0, at);
  const first = groups[0]!.head;
  if (g.head.ref !== myRef) return g.announced ? { kind: 'follow', head: g.head } : { kind: 'wait', first, position: at + 1 };
  if (ahead.length >= speculate || ahead.some((a) => !a.announced)) return { kind: 'wait', first, position: at };
  return { kind: 'lead', ahead, members: g.members, announced: g.announced };
}

/**
 * What a group is, for a land that stacked on it: its head's entry but for its lease's beat
 * (which rewrites the entry every few seconds) and each member's entry by its tip. Equal keys:
 * the group lands as it was predicted.
 */
export function groupKey(g: Group): string {
  const { batch, ...rest } = g.head.entry;
  const head = `${g.head.ref} ${JSON.stringify({ ...rest, members: batch?.members ?? null })}`;
  return [head, ...g.members.map((m) => `${m.ref} ${m.tip}`)].join(',');
}
