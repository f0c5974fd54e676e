// Waiting for this entry's turn in the land queue, to a deadline.
import { formatHolder } from '../../records/holder.js';
import { Conflict, DeadlineReached, Fenced, Interrupted, isRefusal } from '../../core/refusals.js';
import { formatDuration, formatInstant } from '../../core/duration.js';
import type { Repo } from '../../repo/repo.js';
import type { QueueEntry, Snapshot } from '../../repo/snapshot.js';
import type { ClaimKeeper } from '../../claims/claim-keeper.js';
import { pruneQueue } from './prune-queue.js';
import { observeClock } from '../../repo/clock-view.js';
import { turnOf, type SkippedEntry } from './queue-order.js';

// How often a waiting land re-reads the queue (one round trip each). The entry next in line
// polls faster: the queue idles between one landing and its noticing (measured in bench/).
const QUEUE_POLL_MS = 1000;
const NEXT_IN_LINE_POLL_MS = 250;

/**
 * Waits until fewer than `o.depth` live entries are ahead of the entry at `qref` (depth 1: until
 * it is first), or its deadline (exit 4). Answers the read that said so and the entries ahead.
 * Entries whose claim this abcd cannot read are skipped, never waited on (a record newer than
 * this abcd is refused, not guessed at), and added to `o.skipped` for the answer.
 */
export async function waitForTurn(
  repo: Repo,
  o: {
    item: string;
    qref: string;
    myEntryTip: string;
    depth: number;
    deadline: number;
    started: number;
    keeper: ClaimKeeper;
    /** Reads the records with main (LandTarget.read). */
    read: () => Promise<Snapshot>;
    skipped?: Map<string, SkippedEntry>;
  },
): Promise<{ snap: Snapshot; ahead: QueueEntry[] }> {
  const { clock } = repo.deps;
  for (;;) {
    if (o.keeper.interrupted) throw interrupted(o.item);
    if (o.keeper.stoppedBy) throw o.keeper.stoppedBy;
    const snap = await o.read();
    if (o.keeper.stoppedBy) throw o.keeper.stoppedBy;
    // Each read while waiting teaches the clock (the holders ahead renew their claims).
    const view = await observeClock(repo, snap);
    const mine = snap.queue.get(o.qref);
    if (!mine || mine.tip !== o.myEntryTip) throw entryLost(snap, o.keeper, o.item, o.qref);
    const now = clock.now();
    const { turn, ahead, dead, skipped } = turnOf(snap, o.qref, now, view);
    for (const s of skipped) o.skipped?.set(s.ref, s);
    if (dead.length) await pruneQueue(repo, dead, view);
    if (turn.kind === 'gone') throw entryLost(snap, o.keeper, o.item, o.qref);
    if (turn.kind === 'mine' || ahead.length < o.depth) return { snap, ahead };
    if (now >= o.deadline) throw waitedTooLong(o.item, turn.ahead, turn.position, now - o.started);
    const poll = turn.position <= o.depth ? NEXT_IN_LINE_POLL_MS : QUEUE_POLL_MS;
    repo.deps.progress?.(
      `waiting behind ${turn.ahead.item} (${turn.position} ahead) to land ${o.item}, ${formatDuration(o.deadline - now)} left`,
    );
    await clock.sleep(Math.min(poll, o.deadline - now), o.keeper.signal);
  }
}

export function waitedTooLong(item: string, ahead: QueueEntry, position: number, waitedMs: number): DeadlineReached {
  const a = ahead.entry;
  return new DeadlineReached(
    `waited ${formatDuration(waitedMs)} in the land queue for ${item}, behind ${position} live entr${position === 1 ? 'y' : 'ies'}; ` +
      `first ${ahead.item} by ${formatHolder(a.holder)} (head ${a.head.slice(0, 12)}, queued ${formatInstant(a.at)}). ` +
      'Nothing landed; run abcd land again with a longer --wait.',
    {
      item,
      waitedMs,
      waitedOn: { item: ahead.item, ref: ahead.ref, holder: formatHolder(a.holder), head: a.head, queuedAt: formatInstant(a.at) },
      position,
    },
  );
}

/**
 * Takes this land's entry out of the queue. Answers `left`, `gone` (another session removed or
 * rewrote it first) or `stuck` (an unreachable remote or a moved claim left it there; others
 * skip it once the claim lapses). Anything but a refusal is a bug and is thrown.
 */
export async function leaveQueue(keeper: ClaimKeeper, qref: string, lease: string, via: Repo): Promise<'left' | 'gone' | 'stuck'> {
  try {
    const r = await keeper.push(
      (claim) => ({
        claim,
        message: `leave the land queue`,
        records: [{ ref: qref, lease, content: null, message: 'dequeue' }],
      }),
      { via },
    );
    if (r.ok) return 'left';
    return !r.claimMoved && r.remoteTips.has(qref) && r.remoteTips.get(qref) !== lease ? 'gone' : 'stuck';
  } catch (e) {
    if (isRefusal(e)) return 'stuck';
    throw e;
  }
}

/**
 * However a land ends without landing, its entry leaves the queue; the refusal then says
 * truthfully whether it did (`data.leftQueue`).
 */
export async function leaveQueueAfter(e: unknown, keeper: ClaimKeeper, qref: string, lease: string, via: Repo): Promise<void> {
  const how = await leaveQueue(keeper, qref, lease, via);
  if (!isRefusal(e)) return;
  e.data.leftQueue = how !== 'stuck';
  e.message +=
    how === 'left'
      ? ' Its entry left the land queue.'
      : how === 'gone'
        ? ' Its entry was already out of the land queue.'
        : ' Its entry could not be taken out of the land queue; other lands skip it once its claim lapses.';
}

/**
 * Why this session's queue entry is gone from `snap`: its claim was taken over (the entry went
 * with it, a fence: exit 5), or another reader pruned it while the claim stayed ours.
 */
export function entryLost(snap: Snapshot, keeper: ClaimKeeper, item: string, qref: string): Fenced | Conflict {
  const now = snap.claims.get(keeper.ref);
  // Our own renewal may be in flight: a tip written by this session is still ours.
  const ours = now && formatHolder(now.claim.holder) === formatHolder(keeper.claim.holder) && now.claim.state === 'held';
  if (now?.tip === keeper.tip || ours) return entryGone(item, qref);
  const by = now ? `${formatHolder(now.claim.holder)} holds it now (generation ${now.claim.gen})` : 'it has no claim on the remote';
  return new Fenced(
    `your claim on ${item} moved on while it waited in the land queue: ${by}, and its queue entry went with it. ` +
      `Nothing landed. Run abcd status to see the new holder.`,
    { item, ref: keeper.ref, expected: keeper.tip, actual: now?.tip ?? null, ...(now ? { holder: formatHolder(now.claim.holder) } : {}) },
  );
}

/**
 * This session's queue entry was removed by another reader (to it, the entry looked dead)
 * while the claim stayed this session's: not a fence, and nothing landed.
 */
export function entryGone(item: string, ref: string): Conflict {
  return new Conflict(
    `${item}'s queue entry was removed or rewritten by another session while it waited (its claim looked lapsed to them); ` +
      `nothing landed. Run abcd land ${item} again.`,
    { item, ref },
  );
}

export function interrupted(item: string): Interrupted {
  return new Interrupted(`abcd land ${item} was stopped by a signal; nothing landed.`, { item });
}
