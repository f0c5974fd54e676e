// The lanes of one run: each repeatedly checks (records and items read fresh, one round
// trip), takes the next actionable item no other lane of this process has, and runs one
// cycle on it. once: one discovery pass, each item found at most once. poll/timed: until
// idle, stopped, or the deadline leaves no room for a whole cycle.
import { actionable, followUpsOfLanding, liveClaims, reopenedItems, reviewingItems } from '../../items/readiness.js';
import { budgetAllowsCycle } from '../../machine/budget/budget.js';
import type { ItemDoc, ItemListing } from '../../items/source.js';
import { formatItem, parseItem as parseKey, shortItem, type ItemKey } from '../../records/item.js';
import { pendingRef } from '../../records/refs.js';
import type { CycleRecord } from '../../records/lane-result.js';
import { Interrupted, isRefusal, type Refusal } from '../../core/refusals.js';
import { readSnapshot, type Snapshot } from '../../repo/snapshot.js';
import { takeClaim } from '../cycle/claim.js';
import { cycleFits, type RunContext } from '../cycle/context.js';
import { runCycle } from '../cycle/cycle.js';
import { refuseUnvouchedConfig } from '../../settings/config-trust.js';
import { laneRepo } from './lane-repo.js';
import { consumptionProven, followUpItems } from '../guards/receipts.js';
import { acceptsRequest } from '../../steering/requesters.js';
import { readClock } from '../../repo/clock-view.js';
import type { RunRecorder } from '../logs/recorder.js';
import { teamAllowsCycle } from '../team-budget/pool.js';
import { unlessRefusal } from '../../core/best-effort.js';

export interface LoopOptions {
  lifecycle: 'once' | 'poll' | 'timed';
  lanes: number;
  idleMs: number;
  maxCycles: number;
  /** build: the one item the run is bound to. */
  bound?: ItemKey;
  /** build --reopen: the bound item is work even when it is done. */
  reopen?: boolean;
  /** The read the run's entry just made: the first check uses it instead of a second round trip. */
  first?: Snapshot;
  /** The items the entry read at main's tip after `first` (a bound build): the first check reuses them. */
  firstListing?: ItemListing;
}

export interface LoopOutcome {
  cycles: CycleRecord[];
  /** What stopped the run early (budget, a signal, a failed read). */
  stop?: Refusal | Error;
}

// How often a lane with nothing to do checks again (one round trip each).
const CHECK_EVERY_MS = 1000;

/** What the lanes of one run share: what they found, tried and ran, and what stopped them. */
interface LoopState {
  readonly inFlight: Set<string>;
  readonly attempts: Map<string, number>;
  // once: every item found is tried at most once, whether or not its claim could be taken; one
  // whose lapsed claim may be taken over only shortly is tried again then (`later`: when).
  readonly tried: Set<string>;
  readonly later: Map<string, number>;
  readonly cycles: CycleRecord[];
  found: Set<string> | undefined;
  lastWork: number;
  stop: Refusal | Error | undefined;
  cycleNo: number;
  readonly bound: string | undefined;
  /** The entry's read and its listing, until the run's first check takes them. */
  preread: Snapshot | undefined;
  prelisted: ItemListing | undefined;
  readonly judgeConfig: ReturnType<typeof configJudge>;
}

export async function runLanes(ctx: RunContext, rec: RunRecorder, o: LoopOptions): Promise<LoopOutcome> {
  const st: LoopState = {
    inFlight: new Set(),
    attempts: new Map(),
    tried: new Set(),
    later: new Map(),
    cycles: [],
    found: undefined,
    lastWork: ctx.repo.deps.clock.now(),
    stop: undefined,
    cycleNo: 0,
    bound: o.bound ? formatItem(o.bound) : undefined,
    preread: o.first,
    prelisted: o.first ? o.firstListing : undefined,
    judgeConfig: configJudge(ctx),
  };
  const guard = async (n: number) => {
    try {
      await laneLoop(ctx, rec, o, st, n);
    } catch (e) {
      // A failed read is an error, never "no work": the run stops and says so.
      st.stop ??= isRefusal(e) || e instanceof Error ? e : new Error(String(e));
    }
  };
  await Promise.all(Array.from({ length: o.lanes }, (_, i) => guard(i + 1)));
  // once leaves a follow-up asked for during its cycles to the next build or drain: say so.
  if (o.lifecycle === 'once' && st.cycles.length && !st.stop) await deferFollowUps(ctx, rec, st.tried);
  return { cycles: st.cycles, ...(st.stop ? { stop: st.stop } : {}) };
}

/** Lane `n`: checks, takes the next item no other lane has and runs a cycle on it, until done or stopped. */
async function laneLoop(ctx: RunContext, rec: RunRecorder, o: LoopOptions, st: LoopState, n: number): Promise<void> {
  const { clock } = ctx.repo.deps;
  const lane = laneRepo(ctx.repo, ctx.runId, n);
  for (;;) {
    if (st.stop) return;
    if (ctx.signal?.aborted) {
      st.stop ??= new Interrupted(
        'the lane run was stopped (SIGINT/SIGTERM): no new cycle started; the running ones were stopped and cleaned up.',
        {},
      );
      return;
    }
    // once: everything the pass found was tried and nothing runs: no further read can add work.
    if (st.found && st.inFlight.size === 0 && [...st.found].every((k) => st.tried.has(k))) return;
    const budget = budgetAllowsCycle(ctx.budgetDir);
    if (!budget.allowed) {
      st.stop ??= budget.refusal;
      return;
    }
    // Only the first check of the run uses the entry's read: taken before any await, so the
    // lanes that start beside this one read afresh.
    const [pre, preListed] = [st.preread, st.prelisted];
    st.preread = undefined;
    st.prelisted = undefined;
    const snap = pre ?? (await readSnapshot(ctx.repo, [ctx.main.fetchSpec]));
    // The team pool, from the read just made: the stricter of it and this computer's pool wins.
    const team = await teamAllowsCycle(ctx.repo, snap);
    if (team) {
      st.stop ??= team;
      return;
    }
    const { listing, now, ready } = await readyWork(ctx, snap, preListed, { bound: st.bound, reopen: o.reopen });
    if (o.lifecycle === 'once') st.found ??= discovered(listing.items, ready, st.bound);
    const next = firstTakeable(ready, o, { ...st, now });
    if (!next) {
      if (await nothingToTake(ctx, rec, o, { ...st, ready })) return;
      continue;
    }
    const k = formatItem(next.key);
    if (!cycleFits(ctx, now)) {
      rec.defer(shortItem(next.key), 'the deadline leaves no room for a whole cycle');
      return;
    }
    st.inFlight.add(k);
    st.tried.add(k);
    try {
      await st.judgeConfig(snap);
      const taken = await takeClaim(lane, snap, next.key, ctx.ttlMs);
      if (!taken || !('tip' in taken)) {
        await missedClaim(ctx, rec, { ...st, next, taken, snap });
        continue;
      }
      await runTakenCycle(ctx, rec, { lane, next, taken, cycleNo: ++st.cycleNo, attempts: st.attempts, cycles: st.cycles });
      st.lastWork = clock.now();
    } finally {
      st.inFlight.delete(k);
    }
  }
}

type Taken = NonNullable<Awaited<ReturnType<typeof takeClaim>>>;

/** The first ready item this lane may take now: none in flight, within the bound, once's or the cap's rule. */
function firstTakeable(
  ready: ItemDoc[],
  o: LoopOptions,
  w: {
    now: number;
    bound: string | undefined;
    inFlight: Set<string>;
    found: Set<string> | undefined;
    tried: Set<string>;
    later: Map<string, number>;
    attempts: Map<string, number>;
  },
): ItemDoc | undefined {
  const { now, bound, inFlight, found, tried, later, attempts } = w;
  const cands = ready.filter((i) => {
    const k = formatItem(i.key);
    if (inFlight.has(k) || (bound && k !== bound)) return false;
    if (found) return found.has(k) && !tried.has(k) && !((later.get(k) ?? 0) > now);
    return (attempts.get(k) ?? 0) < o.maxCycles;
  });
  return cands[0];
}

/** The claim could not be taken: once may wait for a lapsed claim to become takeable; then the lane looks again shortly. */
async function missedClaim(
  ctx: RunContext,
  rec: RunRecorder,
  w: {
    next: ItemDoc;
    taken: Taken | undefined;
    snap: Snapshot;
    found: Set<string> | undefined;
    tried: Set<string>;
    later: Map<string, number>;
  },
): Promise<void> {
  const { clock } = ctx.repo.deps;
  const { next, taken, snap, found, tried, later } = w;
  const k = formatItem(next.key);
  // once: a lapsed claim this clone has not watched for the takeover delay yet is still
  // work found at the start; it is tried again once it may be taken, if that comes soon.
  if (taken && !('tip' in taken) && found && waitsForTakeover(taken.takeableAt, clock.now(), snap.settings.takeoverDelay, ctx.deadline)) {
    tried.delete(k);
    later.set(k, taken.takeableAt);
  } else if (taken && found)
    rec.defer(shortItem(next.key), 'its lapsed claim may be taken over only later: the next build or drain takes it');
  // Another session has it, won the race, or its lapsed claim is not takeable yet: look again shortly.
  await clock.sleep(CHECK_EVERY_MS * (0.8 + Math.random() * 0.4), ctx.signal);
}

/** One cycle on a claim just taken, counted against the item's cap and recorded. */
async function runTakenCycle(
  ctx: RunContext,
  rec: RunRecorder,
  w: {
    lane: ReturnType<typeof laneRepo>;
    next: ItemDoc;
    taken: Extract<Taken, { tip: unknown }>;
    cycleNo: number;
    attempts: Map<string, number>;
    cycles: CycleRecord[];
  },
): Promise<void> {
  const { lane, next, taken, cycleNo, attempts, cycles } = w;
  const k = formatItem(next.key);
  attempts.set(k, (attempts.get(k) ?? 0) + 1);
  rec.working(shortItem(next.key), true);
  const cycle = await runCycle(ctx, lane, next, taken, cycleNo);
  rec.working(shortItem(next.key), false);
  // Turns that resolved a land conflict were cycles' worth of work: they count against the cap.
  if (cycle.resumed?.conflict) attempts.set(k, (attempts.get(k) ?? 0) + cycle.resumed.conflict);
  cycles.push(cycle);
  rec.addCycle(cycle);
  // Where the item lives hears how the cycle ended (a landing reported itself); best
  // effort: the result stands in abcd status whatever the forge answers.
  if (cycle.outcome !== 'landed') await ctx.source.reportOutcome(next.key, { ...cycle, runId: ctx.runId });
}

/**
 * main's config is judged again whenever main or the settings moved: a long drain must not
 * run its next cycle under a loosening landed meanwhile by anyone but the person.
 */
function configJudge(ctx: RunContext) {
  let judged: string | undefined;
  return async (snap: Snapshot) => {
    const mainTip = await ctx.main.tipIn(snap);
    const key = `${mainTip} ${snap.settingsTip ?? ''}`;
    if (judged === key) return;
    await refuseUnvouchedConfig(ctx.repo, { mainTip, snap });
    judged = key;
  };
}

/** The items a lane may take now, from the read just made (or the run's entry's listing). */
async function readyWork(
  ctx: RunContext,
  snap: Snapshot,
  preListed: ItemListing | undefined,
  o: { bound: string | undefined; reopen: boolean | undefined },
) {
  const { clock } = ctx.repo.deps;
  const { bound } = o;
  const listing = preListed ?? (await ctx.source.list(await ctx.main.tipIn(snap)));
  const now = clock.now();
  // Follow-ups: pending slots (less those a receipt covers: the run in flight absorbed them) and open steers.
  const pending = await followUpItems(ctx.repo, snap, { mainTip: await ctx.main.tipIn(snap) });
  // A done item is work only when reopened: by a claim `reserve --reopen` took, by this
  // build, or by a follow-up asked before it landed.
  const reopened = reopenedItems(snap.claims.values());
  for (const k of followUpsOfLanding(snap.claims.values(), snap.pending.values(), pending)) reopened.add(k);
  if (bound && o.reopen) reopened.add(bound);
  // Work a lane left for the person's review is not taken again until the person acts on it.
  const reviewing = reviewingItems(snap.claims.values());
  const ready = actionable(listing.items, liveClaims(snap.claims.values(), now, await readClock(ctx.repo)), pending, reopened, reviewing);
  return { listing, now, ready };
}

/** With no item to take: true when the lane is done, false after it waited to check again. */
async function nothingToTake(
  ctx: RunContext,
  rec: RunRecorder,
  o: LoopOptions,
  w: {
    ready: ItemDoc[];
    attempts: Map<string, number>;
    later: Map<string, number>;
    tried: Set<string>;
    inFlight: Set<string>;
    lastWork: number;
  },
): Promise<boolean> {
  const { clock } = ctx.repo.deps;
  const { ready, attempts, later, tried, inFlight, lastWork } = w;
  for (const i of ready) {
    const k = formatItem(i.key);
    if ((attempts.get(k) ?? 0) >= o.maxCycles) rec.defer(shortItem(i.key), `the cycle cap of ${o.maxCycles} per item per run was reached`);
  }
  // once: what it found and waits to take over is still its work while it is still ready.
  const awaiting = ready.some((i) => later.has(formatItem(i.key)) && !tried.has(formatItem(i.key)));
  if (inFlight.size === 0 && (o.lifecycle === 'once' ? !awaiting : clock.now() - lastWork >= o.idleMs)) return true;
  if (clock.now() + CHECK_EVERY_MS >= ctx.deadline) return true;
  await clock.sleep(CHECK_EVERY_MS * (0.8 + Math.random() * 0.4), ctx.signal);
  return false;
}

/** once leaves a follow-up asked for during its cycles to the next build or drain: it says so. */
async function deferFollowUps(ctx: RunContext, rec: RunRecorder, tried: Set<string>): Promise<void> {
  try {
    const last = await readPendingOf(ctx, tried);
    const mainTip = last ? await ctx.main.tip() : '';
    for (const p of last?.pending.values() ?? []) {
      const req = { kind: 'pending' as const, id: p.tip };
      if (
        tried.has(p.item) &&
        acceptsRequest({ tip: p.tip, stated: p.request.requester }, ctx.repo.me, last!) &&
        !(await consumptionProven(ctx.repo.git, { snap: last!, mainTip, item: parseKey(p.item), req }))
      ) {
        rec.defer(shortItem(parseKey(p.item)), 'a follow-up request waits in its pending slot for the next build or drain');
      }
    }
  } catch (e) {
    // The result still stands without this note; the slot itself stays on the remote.
    unlessRefusal(undefined)(e);
  }
}

// A once drain waits for a lapsed claim this long past the takeover delay (its own sighting's
// watch, plus reads); one takeable only later (its holder's clock never measured) is left.
const TAKEOVER_WAIT_SLACK_MS = 5000;

/** Whether a once drain waits for a lapsed claim that becomes takeable at `at`. */
function waitsForTakeover(at: number, now: number, delay: number, deadline: number): boolean {
  return at <= deadline && at - now <= delay + TAKEOVER_WAIT_SLACK_MS;
}

// Up to this many tried items, once's last look asks the remote for their slots alone first.
const MAX_SLOTS_ASKED = 64;

/**
 * The records, when a slot of a tried item is on the remote; undefined when none is. The
 * usual answer (no slot) costs one ls-remote instead of a fetch and the reading of every
 * record; either way one round trip, and a slot found is judged on a full read as before.
 */
async function readPendingOf(ctx: RunContext, tried: ReadonlySet<string>): Promise<Snapshot | undefined> {
  if (tried.size <= MAX_SLOTS_ASKED) {
    const tips = await ctx.repo.store.remoteTips([...tried].map((k) => pendingRef(parseKey(k))));
    if ([...tips.values()].every((t) => t === null)) return undefined;
  }
  return readSnapshot(ctx.repo);
}

/** once's discovery: what is actionable now, plus ready items waiting only on those. */
function discovered(items: readonly ItemDoc[], ready: readonly ItemDoc[], bound: string | undefined): Set<string> {
  const set = new Set(ready.map((i) => formatItem(i.key)));
  for (let grew = true; grew;) {
    grew = false;
    for (const i of items) {
      const k = formatItem(i.key);
      if (set.has(k) || i.status !== 'ready') continue;
      if (i.dependsOn.length && i.dependsOn.every((d) => set.has(d) || items.some((x) => formatItem(x.key) === d && x.status === 'done'))) {
        set.add(k);
        grew = true;
      }
    }
  }
  return bound ? new Set([...set].filter((k) => k === bound)) : set;
}
