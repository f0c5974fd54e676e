// Landing a cycle's work without throwing any of it away. The work is kept on the remote (its
// work branch, fenced by the claim) before the first land. A land that conflicts with main's
// new tip brings the worktree to that tip with the conflict left in the files and gives the
// same agent session a turn to resolve it; a land check that fails gives it the check's output
// and a turn to fix it; then the cycle lands again. Each kind of turn has its cap; when one is
// used up, or anything else stops the land, the cycle ends saying why, and the work stays on
// its branch (ADR 0089).
import { checkTail, conflictFiles, failureDetail } from '../logs/output-tail.js';
import type { CycleRecord } from '../../records/lane-result.js';
import type { ItemKey } from '../../records/item.js';
import { AgentObjectsRefused, ChangeTooLarge, CheckFailed, Conflict, isRefusal, type Refusal } from '../../core/refusals.js';
import { ClaimKeeper } from '../../claims/claim-keeper.js';
import type { LandResult } from '../../land/types.js';
import type { Repo } from '../../repo/repo.js';
import { readSnapshot } from '../../repo/snapshot.js';
import { sameSession } from '../../records/holder.js';
import type { AgentWork } from '../run/agent-repo.js';
import { keepWork, dropKeptBranches } from './keep-work.js';
import { checkPrompt, conflictPrompt } from './resume-prompts.js';

/** How one resumed turn of the agent ended (what the cycle needs of a runtime's TurnResult). */
export interface ResumedTurn {
  exitCode: number;
  timedOut: boolean;
  stopped: boolean;
  durationMs: number;
}

export interface LandRetry {
  lane: Repo;
  key: ItemKey;
  /** The item's short name, its claim ref. */
  item: string;
  ref: string;
  branch: string;
  /** The keeper that renewed the claim while the agent ran (stopped here before the first land). */
  keeper: ClaimKeeper;
  /** The work taken after the agent's first turn, and the commit it was taken on. */
  work: string;
  base: string;
  /** Lands the local branch `branch` (at `head`) through the queue. */
  land: (head: string) => Promise<LandResult>;
  /** Takes the worktree's work again, on `base`. */
  collect: (base: string) => Promise<AgentWork>;
  /** Brings the worktree to `mainTip` with `head`'s change since `base` merged in; the files git could not merge. */
  rebase: (o: { base: string; head: string; mainTip: string }) => Promise<string[]>;
  /** Continues the same agent session; `signal` stops it (the claim moved). */
  turn: (text: string, kind: 'conflict' | 'check', signal: AbortSignal) => Promise<ResumedTurn>;
  /** The protected paths `head` changes since `base` (protected-change.ts): a change to any waits for the person. */
  protect: (base: string, head: string) => Promise<string[]>;
  /** Whether the time left holds another whole turn and land. */
  fits: () => boolean;
  /** Turns for conflicts (the run's cycle cap less the first) and for failing checks (lanes.fixChecks). */
  caps: { conflict: number; check: number };
}

/** What the cycle records: landed, or the failure, with where the work is kept and the turns given. */
export type RetryOutcome = Partial<CycleRecord> & Pick<CycleRecord, 'outcome'> & { turnMs: number; reviewBase?: string };

export async function landKeepingWork(o: LandRetry): Promise<RetryOutcome> {
  const keepers = new Set<ClaimKeeper>();
  try {
    return await landAndResume(o, (k) => keepers.add(k));
  } finally {
    for (const k of keepers) await k.stop();
  }
}

async function landAndResume(o: LandRetry, started: (k: ClaimKeeper) => void): Promise<RetryOutcome> {
  const resumed = { conflict: 0, check: 0 };
  let turnMs = 0;
  let head = o.work;
  let base = o.base;
  let keeper = o.keeper;
  const kept = () => ({ kept: { branch: o.branch, head } });
  const end = (r: Partial<CycleRecord> & Pick<CycleRecord, 'outcome'>, keptToo = true): RetryOutcome => ({
    ...r,
    ...(keptToo ? kept() : {}),
    ...(resumed.conflict || resumed.check ? { resumed } : {}),
    turnMs,
  });
  try {
    await keepWork(keeper, { item: o.item, branch: o.branch, head });
  } catch (e) {
    if (!isRefusal(e)) throw e;
    return end({ outcome: 'failed', code: e.code, reason: `the work could not be kept on ${o.branch}: ${firstLine(e)}` }, false);
  }
  for (;;) {
    await keeper.stop();
    // Checked on every head before it lands: a fixing turn may touch the rules as well.
    const paths = await o.protect(base, head);
    if (paths.length)
      return { ...end({ outcome: 'needs-review', code: 'needs-review', reason: waitsFor(paths, o), review: { paths } }), reviewBase: base };
    await o.lane.git.refs.update(`refs/heads/${o.branch}`, head);
    const landed = await landOnce(o, head, end);
    if (!isRefusal(landed)) return landed;
    const refusal = landed;
    const next = nextTurn(refusal, resumed, o);
    if (!next)
      return end({
        outcome: refusal.code === 'interrupted' ? 'cancelled' : 'failed',
        code: refusal.code,
        reason: why(refusal, o),
        ...checkTail(refusal),
        ...failureDetail(refusal),
      });
    const held = await heldAgain(o, refusal, end);
    if (!(held instanceof ClaimKeeper)) return held;
    keeper = held;
    started(keeper);
    keeper.start();
    const { turnBase, told, t } = await resumeTurn(o, next, { base, head, keeper });
    resumed[next.kind]++;
    if (t) {
      turnMs += t.durationMs;
      const stopped = turnStopped(t, next.kind, keeper, end);
      if (stopped) return stopped;
    }
    const taken = await workAfterTurn(o, next.kind, { turnBase, told, keeper }, end);
    if (typeof taken !== 'string') return taken;
    head = taken;
    base = turnBase;
  }
}

type End = (r: Partial<CycleRecord> & Pick<CycleRecord, 'outcome'>, keptToo?: boolean) => RetryOutcome;

/** One land of `head`: the cycle's end when it landed, else the land's refusal. */
async function landOnce(o: LandRetry, head: string, end: End): Promise<RetryOutcome | Refusal> {
  let refusal: Refusal;
  try {
    const r = await o.land(head);
    // Earlier cycles' kept work for this item is superseded by what landed.
    await dropKeptBranches(o.lane, o.key);
    return end({ outcome: 'landed', landed: r.tip }, false);
  } catch (e) {
    if (!isRefusal(e)) throw e;
    refusal = e;
  }
  return refusal;
}

/** The claim's keeper after a refused land, or the cycle's end when the claim could not be read or moved on. */
async function heldAgain(o: LandRetry, refusal: Refusal, end: End): Promise<ClaimKeeper | RetryOutcome> {
  const held = await keeperAfterLand(o).catch((e: unknown) => {
    if (isRefusal(e)) return e;
    throw e;
  });
  if (isRefusal(held))
    return end({
      outcome: 'failed',
      code: held.code,
      reason: `${why(refusal, o)}; then the claim could not be read: ${firstLine(held)}`,
    });
  if (!held)
    return end({
      outcome: 'failed',
      code: 'fenced',
      reason: `the claim on ${o.item} moved on after its land was refused: ${firstLine(refusal)}`,
    });
  return held;
}

/** The agent's turn a refused land earned: on main's tip with the conflict in its files, or with the check's output. */
async function resumeTurn(o: LandRetry, next: NextTurn, at: { base: string; head: string; keeper: ClaimKeeper }) {
  const { base, head, keeper } = at;
  let turnBase = base;
  let told: string[] = [];
  let t: ResumedTurn | undefined;
  if (next.kind === 'conflict') {
    turnBase = next.mainTip;
    told = await o.rebase({ base, head, mainTip: next.mainTip });
    // Merged as one change, the work may go in cleanly where replaying its commits did not:
    // then there is nothing for the agent to resolve, and no turn to pay for.
    if (told.length)
      t = await o.turn(conflictPrompt({ item: o.item, mainTip: next.mainTip, files: told, branch: o.branch }), 'conflict', keeper.signal);
  } else t = await o.turn(checkPrompt({ item: o.item, ...next.check }), 'check', keeper.signal);
  return { turnBase, told, t };
}

/** The cycle's end when the resumed turn ended it: fenced, stopped, timed out or failed. */
function turnStopped(t: ResumedTurn, kind: NextTurn['kind'], keeper: ClaimKeeper, end: End): RetryOutcome | undefined {
  const next = { kind };
  if (keeper.fenced) return end({ outcome: 'failed', code: 'fenced', reason: keeper.fenced.message });
  if (t.stopped) return end({ outcome: 'cancelled', reason: `the lane was stopped while the agent's ${next.kind} turn ran` });
  if (t.timedOut) return end({ outcome: 'timeout', reason: `the agent's ${next.kind} turn ran past its timeout and was killed` });
  if (t.exitCode !== 0)
    return end({ outcome: 'failed', code: 'agent-failed', reason: `the agent's ${next.kind} turn exited ${t.exitCode}` });
  return undefined;
}

/** The work after the turn, checked and kept on the remote: its new head, or the cycle's end. */
async function workAfterTurn(
  o: LandRetry,
  kind: NextTurn['kind'],
  at: { turnBase: string; told: string[]; keeper: ClaimKeeper },
  end: End,
): Promise<string | RetryOutcome> {
  const { turnBase, told, keeper } = at;
  const next = { kind };
  let work: AgentWork;
  try {
    work = await o.collect(turnBase);
  } catch (e) {
    if (e instanceof AgentObjectsRefused || e instanceof ChangeTooLarge) return end({ outcome: 'failed', code: e.code, reason: e.message });
    throw e;
  }
  if (!work.head) return end({ outcome: 'no-change', reason: `after its ${next.kind} turn the agent's work changes nothing on main` });
  if (next.kind === 'conflict') {
    const left = await markersLeft(o.lane, work.head, told);
    if (left.length)
      return end({
        outcome: 'failed',
        code: 'conflict',
        reason: `the agent left conflict markers in ${left.join(', ')}; nothing landed`,
        conflictFiles: conflictFiles(left),
      });
  }
  try {
    await keepWork(keeper, { item: o.item, branch: o.branch, head: work.head });
  } catch (e) {
    if (!isRefusal(e)) throw e;
    return end({ outcome: 'failed', code: e.code, reason: `the resolved work could not be kept on ${o.branch}: ${firstLine(e)}` });
  }
  return work.head;
}

type NextTurn =
  { kind: 'conflict'; mainTip: string } | { kind: 'check'; check: { check: string; exitCode: number; timedOut: boolean; output: string } };

/** The turn a refused land earns, or none (not a conflict or a check, a cap used up, no time left). */
function nextTurn(e: Refusal, resumed: { conflict: number; check: number }, o: LandRetry): NextTurn | undefined {
  if (!o.fits()) return undefined;
  // Only a conflict of the work with main's tip is the agent's to resolve (not a branch someone
  // moved, an entry another session pruned, a hook that refused the push).
  if (e instanceof Conflict && e.data.mainTip && e.data.files && resumed.conflict < o.caps.conflict)
    return { kind: 'conflict', mainTip: e.data.mainTip };
  if (e instanceof CheckFailed && resumed.check < o.caps.check) return { kind: 'check', check: e.data };
  return undefined;
}

/** The cycle's reason when it stops: the land's, in a lane's words where a lane has none of its own. */
function why(e: Refusal, o: LandRetry): string {
  const at = `the work is kept on the remote's branch ${o.branch}`;
  const none = o.fits() ? 'no turn to' : 'the deadline leaves no time for a turn to';
  if (e instanceof Conflict && e.data.mainTip && e.data.files)
    return `it conflicts with main at ${e.data.mainTip.slice(0, 12)} in ${e.data.files.join(', ') || 'its history'}, and ${none} resolve it; ${at}`;
  if (e instanceof CheckFailed) return `the land check "${e.data.check}" failed and ${none} fix it; ${at}`;
  return `${firstLine(e)} (${at})`;
}

/** Why a change to the repository's rules did not land, naming the paths and what the person does. */
function waitsFor(paths: readonly string[], o: LandRetry): string {
  const shown = paths.slice(0, 8).join(', ') + (paths.length > 8 ? ` and ${paths.length - 8} more` : '');
  return (
    `the work changes protected paths (${shown}), which only the person lands; it waits on the remote's branch ${o.branch}: ` +
    `abcd review ${o.item}, then abcd land ${o.item} --approve <run>`
  );
}

/** A keeper for the claim as the refused land left it (a fresh read), or undefined when it is no longer this lane's. */
async function keeperAfterLand(o: LandRetry): Promise<ClaimKeeper | undefined> {
  const snap = await readSnapshot(o.lane);
  const e = snap.claims.get(o.ref);
  if (!e || e.claim.state !== 'held' || !sameSession(e.claim.holder, o.lane.me)) return undefined;
  return new ClaimKeeper(o.lane, o.ref, o.item, e.tip, e.claim);
}

/** The files of `files` that still hold a conflict marker line in `head`. */
async function markersLeft(lane: Repo, head: string, files: readonly string[]): Promise<string[]> {
  if (!files.length) return [];
  return lane.git.diff.filesMatching(head, '^(<<<<<<<|>>>>>>>)( |$)', files);
}

function firstLine(e: Error): string {
  return e.message.split('\n')[0]!;
}
