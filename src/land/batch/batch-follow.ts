// A batch member's side (ADR 0096): its land neither tests nor pushes main; it watches the
// records until the batch's head settles it. Landed: its claim is `done` with `landed.batch`,
// written by the head in the push that moved main. Refused: its entry carries the head's
// `verdict`, which it reports as its own refusal. Freed: the head left the queue or no longer
// lists it, and it takes its turn again.
import { sameSession } from '../../records/holder.js';
import type { Verdict } from '../../records/queue.js';
import { CheckFailed, Conflict, Fenced } from '../../core/refusals.js';
import { unlessRefusal } from '../../core/best-effort.js';
import { landingProven, type LandingProof } from '../landed-proof.js';
import type { QueueEntry, Snapshot } from '../../repo/snapshot.js';
import { readClock } from '../../repo/clock-view.js';
import { recordUpdates } from '../../claims/write.js';
import { batchTurnOf, groupsOf } from './batch-groups.js';
import { staleHeads } from './batch-lease.js';
import { isOwnTip, type OwnEntry } from './batch-types.js';
import { entryLost, interrupted, waitedTooLong } from '../queue/turn.js';
import type { LandContext, Landed } from '../types.js';

// How often a member asks whether its batch settled (a cheap ref listing), and how often it
// reads the records whole while it waits.
const FOLLOW_POLL_MS = 150;
const FULL_READ_MS = 2000;

/** What the read says of this land's own claim and entry: landed by a batch, refused, or neither. */
export async function ownOutcome(ctx: LandContext, q: OwnEntry, snap: Snapshot): Promise<Landed | undefined> {
  const { keeper, item } = ctx;
  const claim = snap.claims.get(ctx.ref);
  const c = claim?.claim;
  if (c && c.state === 'done' && sameSession(c.holder, keeper.claim.holder) && c.landed?.batch && c.landed.batch.by !== item) {
    // Anyone who can push can write a claim: landed only if main's history proves it (ADR 0097).
    const proof = await provenOnMain(ctx, c.landed.tip);
    if (!proof) {
      throw new Fenced(
        `${item}'s claim was marked done in ${c.landed.batch.by}'s batch, but main does not hold a landing of it at ` +
          `${c.landed.tip.slice(0, 12)}; nothing landed. Run abcd status to see who wrote the claim.`,
        { item, ref: ctx.ref, state: 'done', expected: keeper.tip, actual: claim.tip },
      );
    }
    await writeAfterLanding(ctx, c.landed.tip);
    return {
      tip: c.landed.tip,
      ...(proof.parent ? { previousTip: proof.parent } : {}),
      attempts: 1,
      checks: [],
      enqueuedAt: q.enqueuedAt,
      batch: { by: c.landed.batch.by, size: c.landed.batch.size, landedAs: proof.shape },
    };
  }
  const mine = snap.queue.get(q.qref);
  if (mine && !isOwnTip(q, mine.tip) && mine.entry.verdict && sameSession(mine.entry.holder, keeper.claim.holder)) {
    // Its own land takes the entry out (undo), leased on the tip the verdict made.
    q.myEntryTip = mine.tip;
    throw verdictRefusal(item, mine.entry.verdict);
  }
  if (!mine || !isOwnTip(q, mine.tip)) throw entryLost(snap, keeper, item, q.qref);
  return undefined;
}

/** Waits while this entry is a member of an announced batch; undefined once it is freed. */
export async function followBatch(ctx: LandContext, q: OwnEntry, head: QueueEntry): Promise<Landed | undefined> {
  const { waiting, target, keeper, item, deadline, started, config } = ctx;
  const { clock } = waiting.deps;
  // Between full reads only the refs that change when the batch settles are asked for (one
  // ls-remote): its own claim and entry, and the head's entry. A full read still comes every
  // FULL_READ_MS, for what no ref shows (the head's claim lapsing).
  const watched = [ctx.ref, q.qref, head.ref];
  let seen: string | undefined;
  let readAt = -Infinity;
  for (;;) {
    if (keeper.interrupted) throw interrupted(item);
    if (seen !== undefined && clock.now() - readAt < FULL_READ_MS) {
      const tips = await waiting.store.remoteTips(watched);
      if (watched.map((r) => tips.get(r) ?? '').join(' ') === seen) {
        await clock.sleep(FOLLOW_POLL_MS, keeper.signal);
        continue;
      }
    }
    const snap = await target.read(waiting);
    readAt = clock.now();
    seen = [snap.claims.get(ctx.ref)?.tip, snap.queue.get(q.qref)?.tip, snap.queue.get(head.ref)?.tip].map((t) => t ?? '').join(' ');
    // Read before the keeper's verdict: the head's landing push moves this claim, which the
    // keeper's next renewal calls a fence.
    const landed = await ownOutcome(ctx, q, snap);
    if (landed) return landed;
    if (keeper.stoppedBy) throw keeper.stoppedBy;
    const now = clock.now();
    const stale = await staleHeads(waiting, snap);
    const turn = batchTurnOf(groupsOf(snap, now, await readClock(waiting), config.batch, stale), q.qref, config.speculate);
    if (turn.kind !== 'follow' || turn.head.ref !== head.ref) return undefined;
    if (now >= deadline) throw waitedTooLong(item, turn.head, 1, now - started);
    waiting.deps.progress?.(`in ${turn.head.item}'s batch: waiting for it to test and land ${item}`);
    await clock.sleep(Math.min(FOLLOW_POLL_MS, Math.max(0, deadline - now)), keeper.signal);
  }
}

// Reads of main a member makes before it calls a claim marked done without a landing a fence:
// a read can catch the head's atomic push half-applied (the claim advertised, main not yet).
const PROOF_READS = 3;
const PROOF_READ_GAP_MS = 250;

/** The proof on main (landed-proof.ts) that `tip` landed this item, reading main again if the first look lacks it. */
async function provenOnMain(ctx: LandContext, tip: string): Promise<LandingProof | undefined> {
  for (let k = 1; ; k++) {
    const proof = await landingProven(ctx.repo.git, { mainTip: await ctx.target.mainTip(), tip, item: ctx.input.item });
    if (proof || k >= PROOF_READS) return proof;
    await ctx.waiting.deps.clock.sleep(PROOF_READ_GAP_MS, ctx.keeper.signal);
    await ctx.target.read(ctx.waiting);
  }
}

/** A member's own records that go with its landing (a lane's receipt): one push of their own, after it. */
async function writeAfterLanding(ctx: LandContext, tip: string): Promise<void> {
  const writes = ctx.input.alsoWrite?.(tip) ?? [];
  if (!writes.length) return;
  const updates = await recordUpdates(ctx.repo, writes, ctx.repo.deps.clock.now());
  // A receipt is a hint that main's history proves: one that cannot be written costs a re-check, not work.
  await ctx.repo.store.push(updates, { atomic: true }).catch(unlessRefusal(undefined));
}

/** The refusal a member reports for the verdict its batch's head wrote. */
export function verdictRefusal(item: string, v: Verdict): CheckFailed | Conflict {
  const where = `in ${v.by}'s batch, on main ${v.base.slice(0, 12)} (tested ${v.tested.slice(0, 12)})`;
  const f = v.failure;
  if (f.kind === 'conflict') {
    return new Conflict(
      `${item} does not integrate ${where}` +
        (f.files.length ? `: conflicts in ${f.files.join(', ')}` : '') +
        '; nothing landed. Bring your branch up to date with main, push, and land again.',
      { item, files: f.files, mainTip: v.base },
    );
  }
  const said = f.output.trim() === '' ? 'It printed nothing (no output on stdout or stderr).' : `Its output ends:\n${f.output}`;
  return new CheckFailed(`the check "${f.check}" ${f.timedOut ? 'timed out' : `exited ${f.exitCode}`} ${where}; nothing landed. ${said}`, {
    check: f.check,
    exitCode: f.exitCode,
    timedOut: f.timedOut,
    output: f.output,
    attempts: f.attempts,
  });
}
