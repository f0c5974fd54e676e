// `abcd land` on any git remote: the queue is records (ADR 0008). Enqueue fenced by the claim (enqueue.ts),
// wait until this entry is among the first `land.speculate` live entries, integrate it on main's
// tip (or on the entries ahead of it, speculation.ts), test that exact commit under the load
// gate, wait until main's tip is the parent it was tested on, and land it in one atomic push:
// main leased on that parent, the claim's next generation leased on its tip, the entry's removal.
import { CheckFailed, Conflict, DeadlineReached, Fenced, isRefusal } from '../../core/refusals.js';
import { refusePush } from '../../claims/write.js';
import type { QueueEntry, Snapshot } from '../../repo/snapshot.js';
import { passedOnRetry, type CheckRun, type LandConfig } from '../checks/checks.js';
import { sanitizeLine } from '../../core/sanitize.js';
import { chooseCheckSandbox, type CheckSandboxChoice } from '../checks/check-sandbox.js';
import { landChecks } from '../checks/item-checks.js';
import { pruneQueue } from '../queue/prune-queue.js';
import { turnOf } from '../queue/queue-order.js';
import { fetchHeads, integrateAhead, judgeStack, type Stack } from '../speculation/speculation.js';
import { landInBatch } from '../batch/strategy-batch.js';
import { enqueue, type Queued } from '../queue/enqueue.js';
import { entryGone, entryLost, interrupted, leaveQueueAfter, waitedTooLong, waitForTurn } from '../queue/turn.js';
import type { LandContext, Landed, LandStrategy } from '../types.js';
import { withNetworkDeadline } from '../../repo/repo.js';
import { readClock } from '../../repo/clock-view.js';
import { integrate, integrationStart, withWorktree, type Integration } from '../worktree.js';
import type { Git } from '../../git/git.js';

// Tests on main's exact tip that main moved under before the land gives up (exit 4): main moving
// under every one means the queue is being bypassed. Speculative re-tests do not count.
const MAX_ATTEMPTS = 3;
// How often a tested entry re-reads main while the entries ahead of it land.
const PARENT_POLL_MS = 250;

type Tested =
  /** `failed`: a check failed on a stack; it is this entry's failure only if the stack lands as tested. */
  | {
      kind: 'tested';
      tip: string;
      checks: CheckRun[];
      stack: Stack;
      failed?: CheckFailed;
      checksSandbox?: 'bwrap' | 'none';
      warning?: string;
    }
  | { kind: 'again' | 'alone' };

// How long a land that gives up may spend taking its entry out of the queue (one small push).
const LEAVE_QUEUE_BUDGET_MS = 3000;

export const gitStrategy: LandStrategy<Queued> = {
  enter: enqueue,
  land: landInTurn,
  async undo({ repo, keeper }, q, e) {
    // However a land ends without landing (conflict, failing check, deadline, re-tests used up),
    // its entry leaves the queue: a live claim would otherwise keep a dead entry at the front.
    // Leaving is cleanup, not waiting: it gets a short budget of its own even past --wait.
    const leaving = withNetworkDeadline(repo, repo.deps.clock.now() + LEAVE_QUEUE_BUDGET_MS);
    if (q.left && isRefusal(e))
      e.data.leftQueue = true; // the push that settled its batch took it out
    else if (!keeper.fenced && !(e instanceof Fenced)) await leaveQueueAfter(e, keeper, q.qref, q.myEntryTip, leaving);
    // Fenced: the claim is another session's now, and so is what becomes of the entry.
    else if (isRefusal(e)) e.data.leftQueue = false;
  },
};

async function landInTurn(ctx: LandContext, q: Queued): Promise<Landed> {
  if (ctx.config.batch > 1) return landInBatch(ctx, q);
  const { waiting, target, keeper, item, deadline, started } = ctx;
  let depth = ctx.config.speculate;
  let attempts = 1;
  let retests = 0;
  // Set once this entry's own work conflicted on a stack or a head ahead could not be had:
  // from then on it tests only as the head of the queue, on main itself.
  let alone = false;
  let turn = q.first;
  for (;;) {
    // --wait bounds the waits (queue, gate); once the turn and the slot are ours, the test and
    // the landing push get git's full network timeout (ctx.repo).
    turn ??= await waitForTurn(waiting, {
      item,
      qref: q.qref,
      myEntryTip: q.myEntryTip,
      depth: alone ? 1 : depth,
      deadline,
      started,
      keeper,
      read: () => target.read(waiting),
      skipped: q.skipped,
    });
    const config = await ctx.landConfig(await target.mainTip());
    depth = config.speculate;
    const tested = await testInTurn(ctx, q, config, turn, alone ? 1 : depth);
    turn = undefined;
    if (tested.kind !== 'tested') {
      alone ||= tested.kind === 'alone';
      continue;
    }
    let next = await awaitParent(ctx, q, tested.stack);
    // The entries ahead landed exactly as tested under it: the failure is this entry's own.
    if (next === 'land' && tested.failed) throw tested.failed;
    if (next === 'land') {
      if (await pushLanding(ctx, q, tested.tip, tested.stack.parent, passedOnRetry(tested.checks))) {
        return {
          tip: tested.tip,
          previousTip: tested.stack.parent,
          attempts,
          checks: tested.checks,
          ...(tested.checksSandbox ? { checksSandbox: tested.checksSandbox } : {}),
          ...(tested.warning ? { warning: tested.warning } : {}),
          enqueuedAt: q.entry.at,
          ...(q.skipped.size ? { skipped: [...q.skipped.values()] } : {}),
          ...(depth > 1 ? { speculation: { depth, position: tested.stack.chain.length, retests } } : {}),
        };
      }
      next = 'moved';
    }
    if (next === 'moved' && tested.stack.chain.length === 0) {
      if (attempts >= MAX_ATTEMPTS) {
        throw new DeadlineReached(
          `${target.main} moved under ${item} on each of ${attempts} attempts; re-tests used up and nothing landed. ` +
            'Land again once main is quieter.',
          { item, attempts, main: target.main },
        );
      }
      attempts++;
    } else retests++;
  }
}

/** Integrates and tests under the gate, on the queue and main as they are once a slot is ours. */
async function testInTurn(
  ctx: LandContext,
  q: Queued,
  first: LandConfig,
  turn: { snap: Snapshot; ahead: QueueEntry[] },
  depth: number,
): Promise<Tested> {
  const { repo, input, target, keeper, item, gate, deadline, landConfig } = ctx;
  const { clock } = repo.deps;
  const testNow = async (): Promise<Tested> => {
    let { ahead } = turn;
    // Testing the tip read before a long gate wait would only earn a re-test: read again.
    if (first.checks.length) {
      const snap = await target.read(repo);
      const now = turnOf(snap, q.qref, clock.now(), await readClock(repo));
      if (now.turn.kind === 'gone') throw entryLost(snap, keeper, item, q.qref);
      ahead = now.ahead;
      if (ahead.length >= depth) return { kind: 'again' };
    }
    const caller = input.lane ? { lane: input.lane } : {};
    // Without a sandbox only main and this entry may be tested: the entries ahead are others' code.
    if (ahead.length && first.checks.length && (await chooseCheckSandbox(first.sandbox, repo, caller)).aloneOnly) return { kind: 'alone' };
    if (ahead.length && !(await fetchHeads(repo, target, ahead))) return { kind: 'alone' };
    const mainTip = await target.mainTip();
    const config = first.checks.length ? await landConfig(mainTip) : first;
    const jail = config.checks.length ? await chooseCheckSandbox(config.sandbox, repo, caller) : undefined;
    if (jail?.aloneOnly && ahead.length) return { kind: 'alone' };
    const own = {
      item,
      head: target.head,
      strategy: input.strategy,
      markDone: !input.keep,
      at: q.entry.at,
      ...(input.consumed ? { consumed: input.consumed } : {}),
    };
    const lead = ahead[0] ? { head: ahead[0].entry.head, strategy: ahead[0].entry.strategy } : own;
    const start = integrationStart({ ...lead, base: mainTip });
    return withWorktree(repo, start, (wt) => testStack(ctx, wt, { own, start, mainTip, ahead, config, jail }));
  };
  try {
    const tested = first.checks.length ? await gate(`land ${item}: ${first.checks.join(' && ')}`, deadline, testNow) : await testNow();
    if (keeper.interrupted) throw interrupted(item);
    return tested;
  } catch (e) {
    if (keeper.stoppedBy) throw keeper.stoppedBy;
    if (keeper.interrupted) throw interrupted(item);
    throw e;
  }
}

/** Integrates this entry on the entries ahead in `wt` and runs the checks on that exact commit. */
async function testStack(
  { repo, input, item, keeper }: LandContext,
  wt: Git,
  o: {
    own: Omit<Integration, 'base'>;
    start: string;
    mainTip: string;
    ahead: QueueEntry[];
    config: LandConfig;
    jail: CheckSandboxChoice | undefined;
  },
): Promise<Tested> {
  const { own, start, mainTip, ahead, config, jail } = o;
  const env = repo.deps.env;
  const { stack, current } = await integrateAhead(wt, { env, mainTip, current: start, ahead });
  let tip: string;
  try {
    tip = await integrate(wt, { ...own, base: stack.parent, env, current });
  } catch (e) {
    // A conflict with work that may yet fail its checks is no reason to refuse: wait to be first.
    if (stack.chain.length && e instanceof Conflict) return { kind: 'alone' };
    throw e;
  }
  const sandbox = jail ? { checksSandbox: jail.sandbox, ...(jail.warning ? { warning: jail.warning } : {}) } : {};
  try {
    const vars = { item, tip, base: stack.parent };
    const watch = input.checkWatch ? { watch: input.checkWatch } : {};
    const checks = await landChecks(repo, wt, {
      config,
      jail,
      vars,
      base: mainTip,
      caller: input.lane ? 'lane' : 'person',
      signal: keeper.signal,
      ...watch,
    });
    return { kind: 'tested', tip, checks, stack, ...sandbox };
  } catch (e) {
    // On a stack the failure may be an entry's ahead: judged once the stack lands or changes.
    if (stack.chain.length && e instanceof CheckFailed && !keeper.signal.aborted)
      return { kind: 'tested', tip, checks: [], stack, failed: e, ...sandbox };
    throw e;
  }
}

/** Waits until main's tip is the parent this entry was tested on, or says why it never will be. */
async function awaitParent({ repo, target, keeper, item, deadline, started }: LandContext, q: Queued, stack: Stack) {
  const { clock } = repo.deps;
  // A read can catch another land's atomic push half-applied (git advertises refs one by one):
  // its entry gone and main not yet moved, or the reverse. A verdict that costs a re-test is
  // acted on only when the next read says it again.
  let suspect: string | undefined;
  for (;;) {
    if (keeper.interrupted) throw interrupted(item);
    if (keeper.stoppedBy) throw keeper.stoppedBy;
    const snap = await target.read(repo);
    const mine = snap.queue.get(q.qref);
    if (!mine || mine.tip !== q.myEntryTip) throw entryLost(snap, keeper, item, q.qref);
    const now = clock.now();
    const view = await readClock(repo);
    const { ahead, dead, skipped } = turnOf(snap, q.qref, now, view);
    for (const s of skipped) q.skipped.set(s.ref, s);
    if (dead.length) await pruneQueue(repo, dead, view);
    const verdict = judgeStack(stack, await target.mainTip(), ahead);
    if (verdict === 'land' || (verdict !== 'wait' && suspect === verdict)) return verdict;
    suspect = verdict === 'wait' ? undefined : verdict;
    if (verdict === 'wait' && now >= deadline) throw waitedTooLong(item, ahead[0]!, ahead.length, now - started);
    await clock.sleep(Math.min(PARENT_POLL_MS, deadline - now), keeper.signal);
  }
}

/** The landing push; false when main moved first (the caller re-tests). Other refusals throw. */
async function pushLanding(
  { repo, input, target, keeper, item, ref }: LandContext,
  q: Queued,
  tip: string,
  parent: string,
  flaky: { check: string; attempts: number }[],
): Promise<boolean> {
  const landed = {
    main: target.main,
    tip,
    ...(flaky.length ? { flaky: flaky.map((f) => ({ ...f, check: sanitizeLine(f.check, 500) })) } : {}),
    // abcd wrote this run's trailers into the tip (worktree.ts): the claim says so, fenced with main.
    ...(input.consumed ? { run: input.consumed.runId } : {}),
  };
  const r = await keeper.push(
    (claim) => ({
      claim: input.keep ? claim : { ...claim, state: 'done', landed },
      message: `land ${claim.item} on ${target.main} at ${tip.slice(0, 12)}`,
      records: [{ ref: q.qref, lease: q.myEntryTip, content: null, message: `dequeue ${q.entry.item}` }, ...(input.alsoWrite?.(tip) ?? [])],
      extra: [
        { ref: `refs/heads/${target.main}`, newOid: tip, lease: parent },
        // The landed work branch goes with the landing (the remote's branch count stays
        // proportional to live work); --keep keeps it with the claim for more work.
        ...(input.keep ? [] : [{ ref: `refs/heads/${target.branch}`, newOid: null, lease: target.head }]),
      ],
    }),
    // Once tested, the landing is not a wait: git's full network timeout, whatever --wait had left.
    { via: repo },
  );
  if (r.ok) return true;
  if (!input.keep && (r.remoteTips.get(`refs/heads/${target.branch}`) ?? null) !== target.head) {
    throw new Conflict(
      `${target.branch} moved on the remote while ${item} was landing (someone pushed to it outside abcd); nothing landed. ` +
        'Bring your branch up to date with it and land again.',
      { item, branch: target.branch, head: target.head },
    );
  }
  // main did not move yet the push failed: a hook or protection refused it; re-testing won't help.
  if ((r.remoteTips.get(`refs/heads/${target.main}`) ?? null) === parent) throw refusePush(item, ref, keeper.tip, r);
  if ((r.remoteTips.get(q.qref) ?? null) !== q.myEntryTip) throw entryGone(item, q.qref);
  return false;
}
