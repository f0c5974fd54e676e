import type { Claim } from '../../records/claim.js';
import { sameSession } from '../../records/holder.js';
import { formatItem, shortItem, type ItemKey } from '../../records/item.js';
import { encodeQueue, unknownQueueFields, type QueueRecord } from '../../records/queue.js';
import { claimRef, queueRef } from '../../records/refs.js';
import { Conflict, DeadlineReached, Fenced, isRefusal } from '../../refusals.js';
import { parseDuration } from '../../time/duration.js';
import { requireMineOnBranch } from '../holding.js';
import type { Repo } from '../repo.js';
import { definedEnv } from '../../deps.js';
import { readSnapshot } from '../snapshot.js';
import { readLandConfig, runChecks, type CheckRun } from './checks.js';
import { ClaimKeeper } from './claim-keeper.js';
import { refusePush, workBranchUpdate, type RecordWrite } from '../claim-write.js';
import { turnOf, type SkippedEntry } from './queue-order.js';
import { entryGone, interrupted, leaveQueueAfter, waitForTurn } from './turn.js';
import { pruneQueue } from './prune-queue.js';
import { readWithMain, refuseNothingToLand, resolveLandTarget } from './target.js';
import { integrate, integrationStart, withWorktree } from './worktree.js';

export interface LandInput {
  item: ItemKey;
  branch?: string;
  waitMs: number;
  strategy: 'rebase' | 'merge';
  /** Keep the claim held after landing instead of marking it done. */
  keep: boolean;
  /** Records written in the landing's own fenced push, given the landed tip (a lane's receipt). */
  alsoWrite?: (landedTip: string) => RecordWrite[];
}

/** Runs the checks under the machine's load gate; the gate's own wait ends by `untilMs`. */
export type GateRunner = <T>(label: string, untilMs: number, fn: () => Promise<T>) => Promise<T>;

export interface LandResult {
  item: string;
  main: string;
  tip: string;
  /** main's tip the landing was tested on (git forge only). */
  previousTip?: string;
  /** GitHub: the pull request, how it merged, and the unfenced window of rule 2. */
  github?: { number: number; url?: string; via: string; fenceWindowMs: number };
  head: string;
  branch: string;
  attempts: number;
  checks: CheckRun[];
  enqueuedAt: number;
  waitedMs: number;
  claim: Claim['state'];
  /** Queue entries ahead whose claim this abcd could not read: skipped, not waited on (rule 3). */
  skipped?: SkippedEntry[];
}

// Re-tests on a new main tip before the land gives up (exit 4): main moving under every
// attempt means the queue is being bypassed.
const MAX_ATTEMPTS = 3;

/** Enqueues the item fenced by its claim, waits its turn, tests, and lands it in one atomic push. */
export async function land(repo: Repo, input: LandInput, gate: GateRunner): Promise<LandResult> {
  if (repo.forge.kind === 'github') {
    const { landGithub } = await import('./land-github.js');
    return landGithub(repo, input, repo.forge);
  }
  const { clock } = repo.deps;
  const started = clock.now();
  const deadline = started + input.waitMs;
  // Without a wait there is no deadline to shorten git's timeouts toward: give them full time.
  if (input.waitMs > 0) repo.limitNetworkTo(deadline);
  const item = shortItem(input.item);
  const ref = claimRef(input.item);
  const qref = queueRef(input.item);
  const target = await resolveLandTarget(repo, input.branch);
  const snap = await readWithMain(repo, target);
  const held = await requireMineOnBranch(repo, snap, { ref, item, branch: target.branch });
  await refuseNothingToLand(repo, target, item);
  // A config the schema refuses (a typo) refuses the land here, before anything is enqueued.
  await readLandConfig(repo.git, await target.mainTip(), (t) => parseDuration(t, 'land.timeout'));
  const refusedEntry = snap.refused.get(qref);
  if (refusedEntry) throw refusedEntry.refusal;
  const old = snap.queue.get(qref);
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
    at: old && sameSession(old.entry.holder, repo.me) ? old.entry.at : clock.now(),
  };
  const keeper = new ClaimKeeper(repo, ref, item, held.tip, held.claim);
  const enq = await keeper
    .push((claim) => ({
      claim: { ...claim, branch: target.branch, head: target.head },
      message: `enqueue ${entry.item} to land on ${target.main}`,
      records: [{ ref: qref, lease: old?.tip ?? null, content: encodeQueue(entry), message: `queue ${entry.item}` }],
      extra: [workBranchUpdate(held.claim, target.branch, target.head)],
    }));
  if (!enq.ok) throw refusePush(item, ref, held.tip, enq);
  const myEntryTip = enq.written.get(qref)!;
  // The read made before enqueueing, plus this entry: if nothing live is ahead, the first turn
  // needs no second read (the re-read just before landing still catches a late earlier entry).
  snap.queue.set(qref, { ref: qref, item, tip: myEntryTip, entry });
  const first = turnOf(snap, qref, clock.now());
  const skipped = new Map(first.skipped.map((s) => [s.ref, s]));
  let firstTurnKnown = first.turn.kind === 'mine';
  if (firstTurnKnown && first.dead.length) await pruneQueue(repo, first.dead);
  keeper.start();
  try {
    return await landInTurn();
  } catch (e) {
    // However a land ends without landing (conflict, failing check, deadline, re-tests used up),
    // its entry leaves the queue: a live claim would otherwise keep a dead entry at the front.
    if (!keeper.fenced && !(e instanceof Fenced)) await leaveQueueAfter(e, keeper, qref, myEntryTip);
    // Fenced: the claim is another session's now, and so is what becomes of the entry.
    else if (isRefusal(e)) e.data.leftQueue = false;
    throw e;
  } finally {
    await keeper.stop();
  }

  async function landInTurn(): Promise<LandResult> {
    for (let attempt = 1; ; attempt++) {
      // --wait bounds the waits (queue, gate); once the turn and the slot are ours, the test and
      // the landing push get git's full network timeout, or a long check would leave the final
      // push no time at all.
      if (input.waitMs > 0) repo.limitNetworkTo(deadline);
      if (!firstTurnKnown) await waitForTurn(repo, { item, qref, myEntryTip, deadline, started, keeper, fetchSpec: target.fetchSpec, skipped });
      firstTurnKnown = false;
      const first = await readLandConfig(repo.git, await target.mainTip(), (t) => parseDuration(t, 'land.timeout'));
      // Integrate and test under the gate, on main as it is once a slot is ours: testing the tip
      // read before a long gate wait would only earn a re-test.
      const testOnMain = async () => {
        repo.limitNetworkTo(Infinity);
        if (first.checks.length) await repo.store.fetch([target.fetchSpec]);
        const mainTip = await target.mainTip();
        const config = first.checks.length ? await readLandConfig(repo.git, mainTip, (t) => parseDuration(t, 'land.timeout')) : first;
        const how = { item, head: target.head, mainTip, strategy: input.strategy, markDone: !input.keep };
        return withWorktree(repo, integrationStart(how), async (wt) => {
          const tip = await integrate(wt, how);
          const env = { ...definedEnv(repo.deps.env), ABCD_LAND_ITEM: item, ABCD_LAND_TIP: tip };
          const checks = config.checks.length
            ? await runChecks({ cwd: wt.dir, checks: config.checks, env, timeoutMs: config.timeoutMs, signal: keeper.signal, now: () => clock.now() })
            : [];
          return { tip, checks, mainTip };
        });
      };
      let tip: string;
      let checks: CheckRun[];
      let mainTip: string;
      try {
        ({ tip, checks, mainTip } = first.checks.length
          ? await gate(`land ${item}: ${first.checks.join(' && ')}`, deadline, testOnMain)
          : await testOnMain());
      } catch (e) {
        if (keeper.stoppedBy) throw keeper.stoppedBy;
        if (keeper.interrupted) throw interrupted(item);
        throw e;
      }
      if (keeper.interrupted) throw interrupted(item);
      // Fairness: an entry enqueued earlier may have become visible while this one tested.
      const again = turnOf(await readSnapshot(repo), qref, clock.now()).turn;
      if (again.kind === 'behind') {
        attempt--;
        continue;
      }
      const r = await keeper.push((claim) => ({
        claim: input.keep ? claim : { ...claim, state: 'done', landed: { main: target.main, tip } },
        message: `land ${claim.item} on ${target.main} at ${tip.slice(0, 12)}`,
        records: [{ ref: qref, lease: myEntryTip, content: null, message: `dequeue ${entry.item}` }, ...(input.alsoWrite?.(tip) ?? [])],
        extra: [
          { ref: `refs/heads/${target.main}`, newOid: tip, lease: mainTip },
          // The landed work branch goes with the landing (the remote's branch count stays
          // proportional to live work); --keep keeps it with the claim for more work.
          ...(input.keep ? [] : [{ ref: `refs/heads/${target.branch}`, newOid: null, lease: target.head }]),
        ],
      }));
      if (r.ok) {
        if (!input.keep) await repo.held.forget(ref);
        return {
          item,
          main: target.main,
          tip,
          previousTip: mainTip,
          head: target.head,
          branch: target.branch,
          attempts: attempt,
          checks,
          enqueuedAt: entry.at,
          waitedMs: clock.now() - started,
          claim: input.keep ? 'held' : 'done',
          ...(skipped.size ? { skipped: [...skipped.values()] } : {}),
        };
      }
      if (!input.keep && (r.remoteTips.get(`refs/heads/${target.branch}`) ?? null) !== target.head) {
        throw new Conflict(
          `${target.branch} moved on the remote while ${item} was landing (someone pushed to it outside abcd); nothing landed. ` +
            'Bring your branch up to date with it and land again.',
          { item, branch: target.branch, head: target.head },
        );
      }
      // main did not move yet the push failed: a hook or protection refused it; re-testing won't help.
      if ((r.remoteTips.get(`refs/heads/${target.main}`) ?? null) === mainTip) throw refusePush(item, ref, keeper.tip, r);
      if ((r.remoteTips.get(qref) ?? null) !== myEntryTip) {
        throw entryGone(item, qref);
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw new DeadlineReached(
          `${target.main} moved under ${item} on each of ${attempt} attempts; re-tests used up and nothing landed. ` +
            'Land again once main is quieter.',
          { item, attempts: attempt, main: target.main },
        );
      }
    }
  }
}
