import type { Claim } from '../../records/claim.js';
import { formatHolder } from '../../records/holder.js';
import { formatItem, shortItem, type ItemKey } from '../../records/item.js';
import { encodeQueue, type QueueRecord } from '../../records/queue.js';
import { claimRef, queueRef } from '../../records/refs.js';
import { Conflict, DeadlineReached, Fenced, isRefusal } from '../../refusals.js';
import { formatDuration, formatInstant, parseDuration } from '../../time/duration.js';
import { requireMine } from '../holding.js';
import type { Repo } from '../repo.js';
import { readSnapshot, type QueueEntry } from '../snapshot.js';
import { readLandConfig, runChecks, type CheckRun } from './checks.js';
import { ClaimKeeper } from './claim-keeper.js';
import { turnOf } from './queue-order.js';
import { pruneQueue } from './prune-queue.js';
import { resolveLandTarget, type LandTarget } from './target.js';
import { integrate, withWorktree } from './worktree.js';

export interface LandInput {
  item: ItemKey;
  branch?: string;
  waitMs: number;
  strategy: 'rebase' | 'merge';
  /** Keep the claim held after landing instead of marking it done. */
  keep: boolean;
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
}

// Re-tests on a new main tip before the land gives up (exit 4): main moving under every
// attempt means the queue is being bypassed.
const MAX_ATTEMPTS = 3;
// How often a waiting land re-reads the queue (one round trip each).
const QUEUE_POLL_MS = 1000;

/** Enqueues the item fenced by its claim, waits its turn, tests, and lands it in one atomic push. */
export async function land(repo: Repo, input: LandInput, gate: GateRunner): Promise<LandResult> {
  if (repo.forge.kind === 'github') {
    const { landGithub } = await import('./land-github.js');
    return landGithub(repo, input, repo.forge);
  }
  const { clock } = repo.deps;
  const started = clock.now();
  const deadline = started + input.waitMs;
  const item = shortItem(input.item);
  const ref = claimRef(input.item);
  const qref = queueRef(input.item);
  const target = await resolveLandTarget(repo, input.branch);
  let snap = await readSnapshot(repo, [target.fetchSpec]);
  const held = await requireMine(repo, snap, ref, item);
  const refusedEntry = snap.refused.get(qref);
  if (refusedEntry) throw refusedEntry.refusal;
  const old = snap.queue.get(qref);
  const entry: QueueRecord = {
    abcd: 'queue',
    v: 1,
    item: formatItem(input.item),
    holder: repo.me,
    branch: target.branch,
    head: target.head,
    main: target.main,
    strategy: input.strategy,
    at: old && old.entry.holder.session === repo.me.session ? old.entry.at : clock.now(),
  };
  const keeper = new ClaimKeeper(repo, ref, item, held.tip, held.claim);
  const enq = await keeper
    .push((claim) => ({
      claim,
      message: `enqueue ${entry.item} to land on ${target.main}`,
      records: [{ ref: qref, lease: old?.tip ?? null, content: encodeQueue(entry), message: `queue ${entry.item}` }],
      extra: [{ ref: `refs/heads/${target.branch}`, newOid: target.head }],
    }));
  if (!enq.ok) throw refusedEnqueue(item, target, enq.rejected);
  let myEntryTip = enq.written.get(qref)!;
  keeper.start();
  try {
    for (let attempt = 1; ; attempt++) {
      snap = await waitForTurn(repo, { item, qref, myEntryTip, deadline, started, keeper, fetchSpec: target.fetchSpec });
      const mainTip = await target.mainTip();
      const config = await readLandConfig(repo.git, mainTip, (t) => parseDuration(t, 'land.timeout'));
      let tip: string;
      let checks: CheckRun[];
      try {
        ({ tip, checks } = await withWorktree(repo, mainTip, async (wt) => {
          const tip = await integrate(wt, { item, head: target.head, mainTip, strategy: input.strategy });
          const env = { ...stringEnv(repo.deps.env), ABCD_LAND_ITEM: item, ABCD_LAND_TIP: tip };
          const checks = config.checks.length
            ? await gate(`land ${item}: ${config.checks.join(' && ')}`, deadline, () =>
                runChecks({ cwd: wt.dir, checks: config.checks, env, timeoutMs: config.timeoutMs, signal: keeper.signal, now: () => clock.now() }),
              )
            : [];
          return { tip, checks };
        }));
      } catch (e) {
        if (keeper.fenced) throw keeper.fenced;
        // A conflict or a failing check leaves the queue to the next entry; the claim stays held.
        if (isRefusal(e) && (e.code === 'conflict' || e.code === 'check-failed')) await leaveQueue(keeper, qref, myEntryTip);
        throw e;
      }
      // Fairness: an entry enqueued earlier may have become visible while this one tested.
      const again = turnOf(await readSnapshot(repo), qref, clock.now()).turn;
      if (again.kind === 'behind') {
        attempt--;
        continue;
      }
      const r = await keeper.push((claim) => ({
        claim: input.keep ? claim : { ...claim, state: 'done', landed: { main: target.main, tip } },
        message: `land ${claim.item} on ${target.main} at ${tip.slice(0, 12)}`,
        records: [{ ref: qref, lease: myEntryTip, content: null, message: `dequeue ${entry.item}` }],
        extra: [{ ref: `refs/heads/${target.main}`, newOid: tip, lease: mainTip }],
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
        };
      }
      if ((r.remoteTips.get(qref) ?? null) !== myEntryTip) {
        throw new Fenced(`${item}'s queue entry was removed while landing; nothing landed. Land again.`, { item, ref: qref });
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw new DeadlineReached(
          `${target.main} moved under ${item} on each of ${attempt} attempts; re-tests used up and nothing landed. ` +
            'Land again once main is quieter.',
          { item, attempts: attempt, main: target.main },
        );
      }
    }
  } finally {
    await keeper.stop();
  }
}

async function waitForTurn(
  repo: Repo,
  o: { item: string; qref: string; myEntryTip: string; deadline: number; started: number; keeper: ClaimKeeper; fetchSpec: string },
) {
  const { clock } = repo.deps;
  for (;;) {
    const snap = await readSnapshot(repo, [o.fetchSpec]);
    if (o.keeper.fenced) throw o.keeper.fenced;
    const mine = snap.queue.get(o.qref);
    if (!mine || mine.tip !== o.myEntryTip) {
      throw new Fenced(`${o.item}'s queue entry was removed or rewritten by another session; nothing landed.`, { item: o.item, ref: o.qref });
    }
    const now = clock.now();
    const { turn, dead } = turnOf(snap, o.qref, now);
    if (dead.length) await pruneQueue(repo, dead);
    if (turn.kind === 'mine') return snap;
    if (turn.kind === 'gone') throw new Fenced(`${o.item}'s queue entry is gone; nothing landed.`, { item: o.item });
    if (now >= o.deadline) throw waitedTooLong(o.item, turn.ahead, turn.position, now - o.started);
    await clock.sleep(Math.min(QUEUE_POLL_MS, o.deadline - now), o.keeper.signal);
  }
}

function waitedTooLong(item: string, ahead: QueueEntry, position: number, waitedMs: number): DeadlineReached {
  const a = ahead.entry;
  return new DeadlineReached(
    `waited ${formatDuration(waitedMs)} in the land queue for ${item}, behind ${position} live entr${position === 1 ? 'y' : 'ies'}; ` +
      `first ${ahead.item} by ${formatHolder(a.holder)} (head ${a.head.slice(0, 12)}, queued ${formatInstant(a.at)}). ` +
      'Nothing landed and the entry was left for a later land; run abcd land again with a longer --wait.',
    {
      item,
      waitedMs,
      waitedOn: { item: ahead.item, ref: ahead.ref, holder: formatHolder(a.holder), head: a.head, queuedAt: formatInstant(a.at) },
      position,
    },
  );
}

async function leaveQueue(keeper: ClaimKeeper, qref: string, lease: string): Promise<void> {
  await keeper
    .push((claim) => ({ claim, message: `leave the land queue`, records: [{ ref: qref, lease, content: null, message: 'dequeue' }] }))
    .catch(() => undefined); // best-effort: a dead entry is skipped by others anyway once the claim lapses
}

function refusedEnqueue(item: string, target: LandTarget, rejected: { ref: string; reason?: string; summary: string }[]): Conflict {
  const why = rejected.map((p) => `${p.ref} (${p.reason ?? p.summary})`).join(', ') || 'the queue entry changed meanwhile';
  return new Conflict(
    `could not enqueue ${item}: the remote refused ${why}. If ${target.branch} on the remote has commits yours lacks, ` +
      'fetch and rebase, then land again.',
    { item, branch: target.branch, rejected },
  );
}

function stringEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
