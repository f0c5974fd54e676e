// `abcd land` with `land.batch` above 1 (ADR 0096), after the entry is enqueued as for any land
// (strategy-git.ts): wait for this entry's group to be its turn (batch-groups.ts), then either
// lead it (batch-lead.ts: test, settle, one push) or follow its head (batch-follow.ts) until
// the head settles it or leaves it free to take its turn again.
import { DeadlineReached } from '../../core/refusals.js';
import { formatDuration } from '../../core/duration.js';
import type { Snapshot } from '../../repo/snapshot.js';
import { observeClock, readClock } from '../../repo/clock-view.js';
import { batchTurnOf, groupsOf, type BatchTurn } from './batch-groups.js';
import { followBatch, ownOutcome } from './batch-follow.js';
import { leadBatch } from './batch-lead.js';
import { BatchLease, staleHeads } from './batch-lease.js';
import type { Failure, HeadEntry } from './batch-types.js';
import type { HeadTurn } from './batch-form.js';
import { pruneQueue } from '../queue/prune-queue.js';
import { turnOf, type SkippedEntry } from '../queue/queue-order.js';
import { entryLost, interrupted, waitedTooLong } from '../queue/turn.js';
import type { LandContext, Landed } from '../types.js';

// Tests on main's exact tip that main moved under before the land gives up (as without batches).
const MAX_ATTEMPTS = 3;
// How often a waiting entry re-reads the queue; faster once its group is next.
const QUEUE_POLL_MS = 1000;
const NEXT_POLL_MS = 250;

export interface BatchQueued extends HeadEntry {
  skipped: Map<string, SkippedEntry>;
}

export async function landInBatch(ctx: LandContext, q: BatchQueued): Promise<Landed> {
  // While it heads a named batch, its lease is renewed; whatever way the land ends, no longer.
  const lease = new BatchLease(ctx, q);
  try {
    return await takeTurns(ctx, q, lease);
  } finally {
    await lease.stop();
  }
}

async function takeTurns(ctx: LandContext, q: BatchQueued, lease: BatchLease): Promise<Landed> {
  let attempts = 1;
  // Once its own work conflicted on a predicted base, or a head could not be fetched, it leads
  // only from the front of the queue and alone.
  let alone = false;
  // Failures by tree: a tree tested once is never tested again in this land.
  const failures = new Map<string, Failure>();
  for (;;) {
    const turn = await waitForGroupTurn(ctx, q, alone);
    if (turn.kind === 'landed') return { ...turn.landed, attempts };
    if (turn.kind === 'follow') {
      const landed = await followBatch(ctx, q, turn.head);
      if (landed) return landed;
      continue;
    }
    const led = await leadBatch(ctx, q, turn, { alone, failures, lease, reread: () => leadTurnNow(ctx, q) });
    if (led.kind === 'landed') return { ...led.landed, attempts, ...(q.skipped.size ? { skipped: [...q.skipped.values()] } : {}) };
    alone ||= led.alone === true;
    if (led.mainMoved) {
      if (attempts >= MAX_ATTEMPTS) {
        throw new DeadlineReached(
          `${ctx.target.main} moved under ${ctx.item}'s batch on each of ${attempts} attempts; nothing landed. Land again once main is quieter.`,
          { item: ctx.item, attempts, main: ctx.target.main },
        );
      }
      attempts++;
    }
  }
}

type GroupTurn =
  Extract<BatchTurn, { kind: 'follow' }> | (Extract<BatchTurn, { kind: 'lead' }> & { snap: Snapshot }) | { kind: 'landed'; landed: Landed };

/** Waits until this entry follows an announced batch or may lead its own (to --wait's deadline). */
async function waitForGroupTurn(ctx: LandContext, q: BatchQueued, alone: boolean): Promise<GroupTurn> {
  const { waiting, target, keeper, item, deadline, started } = ctx;
  const { clock } = waiting.deps;
  for (;;) {
    if (keeper.interrupted) throw interrupted(item);
    const snap = await target.read(waiting);
    const view = await observeClock(waiting, snap);
    // Landed or refused by a batch this land followed a moment ago: its records say so.
    const landed = await ownOutcome(ctx, q, snap);
    if (landed) return { kind: 'landed', landed };
    if (keeper.stoppedBy) throw keeper.stoppedBy;
    const now = clock.now();
    const { dead, skipped } = turnOf(snap, q.qref, now, view);
    for (const s of skipped) q.skipped.set(s.ref, s);
    if (dead.length) await pruneQueue(waiting, dead, view);
    const config = await ctx.landConfig(await target.mainTip());
    const stale = await staleHeads(waiting, snap);
    const turn = batchTurnOf(groupsOf(snap, now, view, alone ? 1 : config.batch, stale), q.qref, alone ? 1 : config.speculate);
    if (turn.kind === 'gone') throw entryLost(snap, keeper, item, q.qref);
    if (turn.kind === 'follow') return turn;
    if (turn.kind === 'lead') return { ...turn, snap };
    if (now >= deadline) throw waitedTooLong(item, turn.first, turn.position, now - started);
    const left = formatDuration(deadline - now);
    waiting.deps.progress?.(`waiting behind ${turn.first.item} (${turn.position} batches ahead) to land ${item}, ${left} left`);
    const poll = turn.position <= config.speculate ? NEXT_POLL_MS : QUEUE_POLL_MS;
    await clock.sleep(Math.min(poll, deadline - now), keeper.signal);
  }
}

/** A fresh read of this head's turn while its batch fills; undefined when it no longer leads. */
async function leadTurnNow(ctx: LandContext, q: BatchQueued): Promise<HeadTurn | undefined> {
  const snap = await ctx.target.read(ctx.waiting);
  const now = ctx.waiting.deps.clock.now();
  const stale = await staleHeads(ctx.waiting, snap);
  const turn = batchTurnOf(groupsOf(snap, now, await readClock(ctx.waiting), ctx.config.batch, stale), q.qref, ctx.config.speculate);
  return turn.kind === 'lead' ? { snap, ahead: turn.ahead, members: turn.members, announced: turn.announced } : undefined;
}
