// Enqueueing a land's entry on a git remote (ADR 0008): the queue record, written in the same
// fenced push as the claim's renewal and the work branch, its rank fixed by its priority.
import { sameSession } from '../../records/holder.js';
import { formatItem } from '../../records/item.js';
import { encodeQueue, unknownQueueFields, type QueueRecord } from '../../records/queue.js';
import { queueRef } from '../../records/refs.js';
import { refusePush, workBranchUpdate } from '../../claims/write.js';
import type { QueueEntry, Snapshot } from '../../repo/snapshot.js';
import { readClock } from '../../repo/clock-view.js';
import { pruneQueue } from './prune-queue.js';
import { liveHead, turnOf, type SkippedEntry } from './queue-order.js';
import { entryRank, rankFor } from './priority.js';
import type { LandContext } from '../types.js';

// Enqueue attempts when only a former holder's stale entry moved under the lease.
const ENQUEUE_TRIES = 3;

export interface Queued {
  qref: string;
  myEntryTip: string;
  enqueuedAt: number;
  /** Set when the push that settled its batch took the entry out already. */
  left?: boolean;
  entry: QueueRecord;
  skipped: Map<string, SkippedEntry>;
  /** The read made before enqueueing, when it already says this entry may test: no second read. */
  first?: { snap: Snapshot; ahead: QueueEntry[] };
}

/** The entry shares the fenced push with the claim's renewal and the work branch. */
export async function enqueue(ctx: LandContext): Promise<Queued> {
  const { waiting: repo, input, target, snap, item, config } = ctx;
  const { clock } = repo.deps;
  const qref = queueRef(input.item);
  const refusedEntry = snap.refused.get(qref);
  if (refusedEntry) throw refusedEntry.refusal;
  const old = snap.queue.get(qref);
  const view = await readClock(repo);
  const again = old && sameSession(old.entry.holder, repo.me) ? old : undefined;
  const at = again ? again.entry.at : clock.now();
  const priority = input.priority ?? 'normal';
  // A re-enqueue keeps its place; a new entry never ranks ahead of the entries under test.
  const rank =
    again && (again.entry.priority ?? 'normal') === priority
      ? entryRank(again)
      : rankFor({
          at,
          priority,
          ageMs: config.priorityAgeMs,
          testing: liveHead(snap, config.speculate * config.batch, clock.now(), view).filter((q) => q.ref !== qref),
        });
  const entry: QueueRecord = {
    ...(old ? unknownQueueFields(old.entry) : {}),
    abcd: 'queue',
    v: 1,
    item: formatItem(input.item),
    holder: repo.me,
    branch: target.branch,
    head: target.head,
    main: target.main,
    strategy: input.strategy,
    at,
    rank,
    ...(priority !== 'normal' ? { priority } : {}),
    // The entries behind integrate this one as it will land: with --keep, its item stays ready.
    ...(input.keep ? { keep: true } : {}),
    // ...and with what its run absorbed in the marking commit, so their stacks are the commits that land.
    ...(input.consumed ? { consumed: input.consumed } : {}),
  };
  if (!input.keep) delete (entry as Record<string, unknown>).keep;
  if (priority === 'normal') delete (entry as Record<string, unknown>).priority;
  if (!input.consumed) delete (entry as Record<string, unknown>).consumed;
  const enq = await pushEntry(ctx, { qref, entry, lease: old?.tip ?? null });
  const myEntryTip = enq.written.get(qref)!;
  // The read made before enqueueing, plus this entry: if it may test now, the first turn needs
  // no second read (the read just before landing still catches a late earlier entry).
  const read: Snapshot = { ...snap, queue: new Map([...snap.queue, [qref, { ref: qref, item, tip: myEntryTip, entry }]]) };
  const first = turnOf(read, qref, clock.now(), view);
  const mayTest = first.turn.kind === 'mine' || (first.turn.kind === 'behind' && first.ahead.length < config.speculate);
  if (mayTest && first.dead.length) await pruneQueue(repo, first.dead, view);
  return {
    qref,
    myEntryTip,
    enqueuedAt: entry.at,
    entry,
    skipped: new Map(first.skipped.map((s) => [s.ref, s])),
    ...(mayTest ? { first: { snap: read, ahead: first.ahead } } : {}),
  };
}

/**
 * Pushes the entry with the claim's renewal and the work branch, leased on what the remote
 * holds for it; a former holder's entry that moved meanwhile is leased on again.
 */
async function pushEntry(
  { waiting: repo, target, held, keeper, item, ref }: LandContext,
  o: { qref: string; entry: QueueRecord; lease: string | null },
) {
  const { qref, entry } = o;
  let lease = o.lease;
  let enq;
  for (let tries = 1; ; tries++) {
    const entryLease = lease;
    enq = await keeper.push(
      (claim) => ({
        claim: { ...claim, branch: target.branch, head: target.head },
        message: `enqueue ${entry.item} to land on ${target.main}`,
        records: [{ ref: qref, lease: entryLease, content: encodeQueue(entry), message: `queue ${entry.item}` }],
        extra: [workBranchUpdate(held.claim, target.branch, target.head)],
      }),
      { via: repo },
    );
    if (enq.ok) break;
    // The claim is ours, so any entry for this item is a former holder's: another reader may
    // have pruned it between our read and our push. Lease on what the remote holds now.
    const now = enq.remoteTips.get(qref) ?? null;
    // A server-side lease failure marks every ref of the atomic push "atomic transaction failed".
    const onlyTheEntryMoved =
      !enq.claimMoved && now !== entryLease && enq.rejected.every((p) => p.ref === qref || /atomic/.test(p.reason ?? ''));
    if (!onlyTheEntryMoved || tries >= ENQUEUE_TRIES) throw refusePush(item, ref, held.tip, enq);
    lease = now;
  }
  return enq;
}
