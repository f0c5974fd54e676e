// The head of a batch (ADR 0096): it stacks its own entry and the free live entries behind it
// on main (or on the predicted landing of the batches ahead), names them in its entry, tests
// the whole stack once, and, once main is the base it tested on, settles the batch (bisect.ts)
// and writes the outcome in ONE fenced push: main leased on that base and moved to the last
// piece, each landed member's claim `done` leased on its tip, their entries and branches gone,
// each refused member's entry rewritten with its verdict. Killed before that push, it has
// written nothing but its entry's member list: nothing landed, and the members take their
// turn again once its claim lapses.
import { encodeQueue, type QueueRecord } from '../../records/queue.js';
import { CheckFailed, Conflict, DeadlineReached } from '../../core/refusals.js';
import type { QueueEntry, Snapshot } from '../../repo/snapshot.js';
import type { Git } from '../../git/git.js';
import type { CheckRun } from '../checks/checks.js';
import { chooseCheckSandbox, type CheckSandboxChoice } from '../checks/check-sandbox.js';
import { landChecks } from '../checks/item-checks.js';
import { settleBatch, type Outcome } from '../speculation/bisect.js';
import { formBatch, type HeadTurn } from './batch-form.js';
import { groupKey, type Group } from './batch-groups.js';
import { leasedBatch, type BatchLease } from './batch-lease.js';
import { pushSettled } from './batch-settle.js';
import { finishStack, landingShapeOf, stackBatch, type BatchStack } from './batch-stack.js';
import { isOwnTip, type Failure, type HeadEntry } from './batch-types.js';
import { fetchHeads } from '../speculation/speculation.js';
import { entryGone, interrupted } from '../queue/turn.js';
import type { LandContext, Landed } from '../types.js';
import { withWorktree } from '../worktree.js';

// How often the head re-reads main while the batches ahead land.
const PARENT_POLL_MS = 250;
// A bisection's tests wait for a gate slot at least this long, whatever --wait has left: they are
// the batch's own test, not a wait in the queue.
const BISECT_GATE_WAIT_MS = 10 * 60_000;
// A spare slot is one free now: the first half's test beside the whole batch's waits no longer for it.
const SPARE_SLOT_WAIT_MS = 300;

export type LeadOutcome =
  | { kind: 'landed'; landed: Landed }
  /** Take the turn again: the batches ahead changed, main moved, or (`alone`) only a test on main itself will do. */
  | { kind: 'again'; alone?: boolean; mainMoved?: boolean };

interface Tested {
  stack: BatchStack;
  checks: CheckRun[];
}

type LeadOptions = {
  alone: boolean;
  failures: Map<string, Failure>;
  reread: () => Promise<HeadTurn | undefined>;
  lease: BatchLease;
};
type LandConfig = Awaited<ReturnType<LandContext['landConfig']>>;
type BatchTests = ReturnType<typeof batchTests>;
type Formed = Exclude<Awaited<ReturnType<typeof formAndTest>>, 'again' | 'alone' | Conflict>;

/** One batch head's turn: form, announce, test, settle, push. */
export async function leadBatch(ctx: LandContext, q: HeadEntry, turn: HeadTurn, o: LeadOptions): Promise<LeadOutcome> {
  const { repo, target, item, input } = ctx;
  const mainTip = await target.mainTip();
  const config = await ctx.landConfig(mainTip);
  const caller = input.lane ? { lane: input.lane } : {};
  const jail = config.checks.length ? await chooseCheckSandbox(config.sandbox, repo, caller) : undefined;
  // Without a sandbox only main and this entry may be tested: the others are other sessions' code.
  const alone = o.alone || !!jail?.aloneOnly;
  if (alone && turn.ahead.length) return { kind: 'again', alone: true };
  const me = turn.snap.queue.get(q.qref);
  if (!me) throw entryGone(item, q.qref);
  const candidates = alone ? [] : turn.members;
  const others = [...turn.ahead.flatMap((g) => [g.head, ...g.members]), ...candidates];
  if (others.length && !(await fetchHeads(repo, target, others))) return { kind: 'again', alone: true };

  const label = `land ${item}: ${config.checks.join(' && ') || 'no checks'}`;
  const t = batchTests(ctx, { failures: o.failures, jail, config, label });
  const formed = await formAndTest(ctx, q, turn, o, { mainTip, me, candidates, alone, config, label, t });
  if (formed === 'again') return { kind: 'again' };
  if (formed === 'alone') return { kind: 'again', alone: true };
  if (formed instanceof Conflict) throw formed;
  return settleAndPush(ctx, q, turn, o, { mainTip, me, jail, formed, t });
}

/** How the head tests stacks: in a worktree, under a gate slot, and the spare run on a batch's first half. */
function batchTests(
  ctx: LandContext,
  o: { failures: Map<string, Failure>; jail: CheckSandboxChoice | undefined; config: LandConfig; label: string },
) {
  const { repo, keeper, item } = ctx;
  const { config, label } = o;
  const env = repo.deps.env;
  const check = (wt: Git, stack: BatchStack, signal = keeper.signal) => checkStack(ctx, o, wt, stack, signal);
  const test = async (
    members: readonly QueueEntry[],
    base: string,
    signal = keeper.signal,
  ): Promise<{ outcome: Outcome<Failure>; tested?: Tested }> =>
    withWorktree(repo, base, async (wt) => {
      const st = await stackBatch(wt, { env, base, members });
      if (st.kind === 'conflict') {
        return { outcome: { ok: false, ran: false, failure: { kind: 'conflict', error: st.error, entry: st.entry, tested: base, base } } };
      }
      return check(wt, st.stack, signal);
    });
  // A slot free beside the whole batch's test tests its first half too: if the batch fails, the
  // bisection's first round is done already; if it passes, the spare run is stopped.
  const stopSpare = new AbortController();
  let spare: { key: string; run: Promise<{ outcome: Outcome<Failure>; tested?: Tested } | undefined> } | undefined;
  const keyOf = (members: readonly QueueEntry[], b: string) => `${members.map((m) => m.ref).join(',')}@${b}`;
  const startSpare = (members: readonly QueueEntry[], b: string) => {
    const signal = AbortSignal.any([keeper.signal, stopSpare.signal]);
    const run = ctx
      .gate(`${label} (first half, on a spare slot)`, repo.deps.clock.now() + SPARE_SLOT_WAIT_MS, () => test(members, b, signal))
      .catch((e) => {
        if (e instanceof DeadlineReached || stopSpare.signal.aborted) return undefined;
        throw e;
      });
    run.catch(() => undefined); // awaited by the bisection or below, which see its error
    spare = { key: keyOf(members, b), run };
  };
  const tested = new Map<string, Tested>();
  const io = {
    async test(members: readonly QueueEntry[], b: string) {
      if (keeper.interrupted) throw interrupted(item);
      const until = Math.max(ctx.deadline, repo.deps.clock.now() + BISECT_GATE_WAIT_MS);
      const r = config.checks.length ? await ctx.gate(label, until, () => test(members, b)) : await test(members, b);
      if (r.tested) tested.set(r.tested.stack.landing, r.tested);
      return r.outcome;
    },
    async peek(members: readonly QueueEntry[], b: string) {
      if (spare?.key !== keyOf(members, b)) return undefined;
      const r = await spare.run;
      if (r?.tested) tested.set(r.tested.stack.landing, r.tested);
      return r && { ...r.outcome, ran: false };
    },
  };
  /** The whole batch passed: its first half's spare run is stopped, and its end awaited. */
  const dropSpare = async () => {
    stopSpare.abort();
    // cleanup: the spare run was stopped; its end is awaited so its worktree is gone, its result or error is not needed
    await spare?.run.catch(() => undefined);
  };
  return { check, startSpare, io, tested, dropSpare };
}

/** Checks a stack in its worktree; a tree that failed once in this land is not run again. */
async function checkStack(
  ctx: LandContext,
  o: { failures: Map<string, Failure>; jail: CheckSandboxChoice | undefined; config: LandConfig },
  wt: Git,
  stack: BatchStack,
  signal: AbortSignal,
): Promise<{ outcome: Outcome<Failure>; tested?: Tested }> {
  const { jail, config } = o;
  const known = o.failures.get(stack.tree);
  if (known) return { outcome: { ok: false, ran: false, failure: known } };
  const checks = await checksOn(ctx, wt, { stack, jail, config, signal });
  if (checks instanceof CheckFailed) {
    const failure: Failure = { kind: 'check', error: checks, tested: stack.tip, base: stack.base };
    o.failures.set(stack.tree, failure);
    return { outcome: { ok: false, ran: true, failure } };
  }
  return { outcome: { ok: true, ran: true, landing: stack.landing }, tested: { stack, checks } };
}

/** Forms the batch, names its members, and tests the stack in the same worktree, under one slot. */
async function formAndTest(
  ctx: LandContext,
  q: HeadEntry,
  turn: HeadTurn,
  o: LeadOptions,
  f: {
    mainTip: string;
    me: QueueEntry;
    candidates: HeadTurn['members'];
    alone: boolean;
    config: LandConfig;
    label: string;
    t: BatchTests;
  },
) {
  const { repo, keeper, item } = ctx;
  const { mainTip, me, candidates, alone, config, label } = f;
  const { startSpare, check } = f.t;
  const form = () =>
    withWorktree(repo, mainTip, async (wt) => {
      const size = alone ? 1 : config.batch;
      const fillUntil = repo.deps.clock.now() + (alone ? 0 : config.batchWaitMs);
      const made = await formBatch(ctx, wt, { mainTip, me, turn: { ...turn, members: candidates }, size, fillUntil, reread: o.reread });
      if (typeof made === 'string' || made instanceof Conflict) return made;
      // The members are named while the checks already run: the test does not depend on it.
      const announcing = announce(ctx, q, made.chosen, o.lease);
      announcing.catch(() => undefined); // awaited below, which throws its error
      const stack = await finishStack(wt, { base: made.base, members: [me, ...made.chosen], tip: made.tip, commits: made.commits });
      const all = [me, ...made.chosen];
      // Only when nothing stacks on this batch: with land.speculate above 1 a free slot is for the batch behind.
      if (all.length > 1 && made.base === mainTip && config.checks.length && config.speculate === 1)
        startSpare(all.slice(0, Math.ceil(all.length / 2)), made.base);
      const checked = await check(wt, stack);
      await announcing;
      return { ...made, ...checked };
    });
  try {
    return config.checks.length ? await ctx.gate(label, ctx.deadline, form) : await form();
  } catch (e) {
    if (keeper.stoppedBy) throw keeper.stoppedBy;
    if (keeper.interrupted) throw interrupted(item);
    throw e;
  }
}

/** After the batch's own test: main reached as its base, the batch settled (bisected if it failed) and pushed. */
async function settleAndPush(
  ctx: LandContext,
  q: HeadEntry,
  turn: HeadTurn,
  o: LeadOptions,
  f: { mainTip: string; me: QueueEntry; jail: CheckSandboxChoice | undefined; formed: Formed; t: BatchTests },
): Promise<LeadOutcome> {
  const { keeper, item } = ctx;
  const { mainTip, me, jail, formed } = f;
  const { io, tested, dropSpare } = f.t;
  const { base, chosen } = formed;
  let last: Snapshot | undefined = formed.snap;
  const batch = [me, ...chosen];
  const first = formed.outcome;
  if (first.ok) await dropSpare();
  if (formed.tested) tested.set(formed.tested.stack.landing, formed.tested);
  if (keeper.interrupted) throw interrupted(item);
  if (base !== mainTip) {
    last = await awaitBase(ctx, q, base, turn.ahead);
    if (!last) return { kind: 'again' };
  }
  // A bisection took rounds: the records are read again before the push.
  if (!first.ok) last = undefined;
  const settled = first.ok
    ? { pieces: [{ members: batch, base, landing: first.landing }], refused: [], top: first.landing, rounds: 0 }
    : await settleBatch(io, batch, base, first);
  if (keeper.stoppedBy) throw keeper.stoppedBy;
  if (keeper.interrupted) throw interrupted(item);
  // The settling push leases the entry's tip: no beat may move it meanwhile. Taken again, the turn names its members anew.
  await o.lease.stop();
  const pushed = await pushSettled(ctx, q, settled, base, last);
  // Not settled: it still heads its named batch while it takes its turn again.
  if (pushed !== 'ok' && q.entry.batch) o.lease.start();
  if (pushed !== 'ok') return { kind: 'again', ...(pushed === 'main-moved' && turn.ahead.length === 0 ? { mainMoved: true } : {}) };
  q.left = true;
  const mine = settled.refused.find((r) => r.member.ref === q.qref);
  if (mine) throw mine.failure.error;
  const piece = settled.pieces.find((p) => p.members.some((m) => m.ref === q.qref))!;
  const run = tested.get(piece.landing);
  const landedCount = settled.pieces.reduce((n, p) => n + p.members.length, 0);
  return {
    kind: 'landed',
    landed: {
      tip: piece.landing,
      previousTip: piece.base,
      attempts: 1,
      checks: run?.checks ?? [],
      ...(jail ? { checksSandbox: jail.sandbox, ...(jail.warning ? { warning: jail.warning } : {}) } : {}),
      enqueuedAt: q.enqueuedAt,
      batch: {
        by: item,
        size: landedCount,
        // The whole batch's own round, then the bisection's.
        rounds: settled.rounds + 1,
        ...(settled.refused.length ? { refused: settled.refused.map((r) => r.member.item) } : {}),
        landedAs: landingShapeOf(piece.members),
      },
    },
  };
}

/** Runs the checks on a stack: its runs, or the CheckFailed they ended in. */
async function checksOn(
  ctx: LandContext,
  wt: Git,
  o: {
    stack: BatchStack;
    jail: CheckSandboxChoice | undefined;
    config: Awaited<ReturnType<LandContext['landConfig']>>;
    signal: AbortSignal;
  },
): Promise<CheckRun[] | CheckFailed> {
  const vars = { item: ctx.item, tip: o.stack.tip, base: o.stack.base };
  const watch = ctx.input.checkWatch ? { watch: ctx.input.checkWatch } : {};
  const caller = ctx.input.lane ? ('lane' as const) : ('person' as const);
  try {
    return await landChecks(ctx.repo, wt, { config: o.config, jail: o.jail, vars, base: o.stack.base, caller, signal: o.signal, ...watch });
  } catch (e) {
    // A stopped run said nothing about the tree: it is neither a failure nor kept.
    if (e instanceof CheckFailed && !o.signal.aborted) return e;
    throw e;
  }
}

/**
 * Names the members in this entry (one fenced push under the claim) and keeps its batch lease
 * from then on, unless it names them already under a lease being renewed.
 */
async function announce(ctx: LandContext, q: HeadEntry, chosen: readonly QueueEntry[], lease: BatchLease): Promise<void> {
  const members = chosen.map((c) => ({ ref: c.ref, tip: c.tip }));
  const now = q.entry.batch?.members;
  const same = now && now.length === members.length && now.every((m, k) => m.ref === members[k]!.ref && m.tip === members[k]!.tip);
  if (same && lease.running) return;
  const entry: QueueRecord = { ...q.entry, batch: leasedBatch(q.entry, members) };
  const r = await ctx.keeper.push(
    (claim) => ({
      claim,
      message: `renew ${claim.item}: test it with ${members.length} more in one batch`,
      records: [
        { ref: q.qref, lease: q.myEntryTip, content: encodeQueue(entry), message: `batch ${entry.item} with ${members.length} more` },
      ],
    }),
    { via: ctx.repo },
  );
  if (!r.ok) throw entryGone(ctx.item, q.qref);
  q.myEntryTip = r.written.get(q.qref)!;
  (q.written ??= new Set()).add(q.myEntryTip);
  q.entry = entry;
  lease.start();
}

/** Waits until main is `base` (the batches ahead landed as predicted): the read that said so; undefined when they did not. */
async function awaitBase(ctx: LandContext, q: HeadEntry, base: string, ahead: readonly Group[]): Promise<Snapshot | undefined> {
  const { repo, target, keeper, item } = ctx;
  // A read can catch a landing's atomic push half-applied (refs are advertised one by one): a
  // verdict that costs a re-test is acted on only when the next read says it again.
  let suspect = false;
  for (;;) {
    if (keeper.interrupted) throw interrupted(item);
    if (keeper.stoppedBy) throw keeper.stoppedBy;
    const snap = await target.read(repo);
    const mine = snap.queue.get(q.qref);
    if (!mine || !isOwnTip(q, mine.tip)) throw entryGone(item, q.qref);
    if ((await target.mainTip()) === base) return snap;
    // Still on course while every batch ahead not yet landed is queued as predicted; one that
    // settled otherwise (its members changed, or main moved elsewhere) means test again.
    const pending = ahead.filter((g) => snap.queue.has(g.head.ref));
    const onCourse =
      pending.length > 0 &&
      pending.every(
        (g) =>
          groupKey({ ...g, head: snap.queue.get(g.head.ref)! }) === groupKey(g) &&
          g.members.every((m) => snap.queue.get(m.ref)?.tip === m.tip),
      );
    if (!onCourse && suspect) return undefined;
    suspect = !onCourse;
    await repo.deps.clock.sleep(PARENT_POLL_MS, keeper.signal);
  }
}
