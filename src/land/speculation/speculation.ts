// Speculation (ADR 0041): with `land.speculate` N above 1, the first N live entries of the queue
// test at once, each on top of the entries ahead of it. There is no coordinator: each land works
// out the same stack from the queue records (their heads, strategies and enqueue times) and
// main's tip, because integration is deterministic (worktree.ts). An entry lands only when main's
// tip is exactly the parent it was tested on; anything else means integrate again and re-test.
import { ConsumptionSchema } from '../../records/receipt.js';
import type { Env } from '../../core/deps.js';
import { isRefusal } from '../../core/refusals.js';
import type { Git } from '../../git/git.js';
import type { Repo } from '../../repo/repo.js';
import type { QueueEntry } from '../../repo/snapshot.js';
import type { LandTarget } from '../target.js';
import { integrate, type Integration } from '../worktree.js';

/** An entry ahead as this land predicts it: its record's tip and the commit main will have once it lands. */
export interface Predicted {
  ref: string;
  item: string;
  entryTip: string;
  commit: string;
}

export interface Stack {
  /** main's tip the stack starts on. */
  mainTip: string;
  /** The entries ahead predicted to land, in queue order. */
  chain: Predicted[];
  /** Entries ahead that do not integrate onto the stack (`ref tip`): predicted to be refused, not waited on. */
  failing: Set<string>;
  /** What this entry's work comes onto: the last commit of the chain, else main's tip. */
  parent: string;
}

/** A work branch name as a refspec may carry it (the record's text is another session's). */
const SAFE_BRANCH = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._/-]*$/;

/**
 * Makes sure this clone has the head of every entry ahead, fetching the work branches it lacks
 * (with the records and main, one round trip). False when one cannot be had: its branch is gone
 * or moved, so its landing cannot be predicted and this entry waits instead of guessing.
 */
export async function fetchHeads(repo: Repo, target: LandTarget, ahead: readonly QueueEntry[]): Promise<boolean> {
  const has = async (oid: string) => repo.git.objects.hasCommit(oid);
  const missing: QueueEntry[] = [];
  for (const q of ahead) if (!(await has(q.entry.head))) missing.push(q);
  if (missing.length === 0) return true;
  if (missing.some((q) => !SAFE_BRANCH.test(q.entry.branch))) return false;
  const cache = `refs/abcd-land/${repo.store.remote}/ahead/`;
  try {
    target.forgetTip();
    await repo.store.fetch([target.fetchSpec, ...missing.map((q) => `+refs/heads/${q.entry.branch}:${cache}${q.entry.branch}`)]);
  } catch (e) {
    if (isRefusal(e)) return false; // a branch gone: the entry is landing or leaving; read again
    throw e;
  }
  for (const q of missing) if (!(await has(q.entry.head))) return false;
  return true;
}

/** How another session's queue entry comes onto `base`, exactly as its own land will bring it. */
export function entryIntegration(q: QueueEntry, base: string): Integration {
  const keep = (q.entry as Record<string, unknown>).keep === true;
  // A malformed one is left out: the prediction then differs and only this stack tests again.
  const consumed = ConsumptionSchema.safeParse((q.entry as Record<string, unknown>).consumed);
  return {
    item: q.item,
    head: q.entry.head,
    base,
    strategy: q.entry.strategy,
    markDone: !keep,
    at: q.entry.at,
    ...(consumed.success ? { consumed: consumed.data } : {}),
  };
}

/**
 * Integrates the entries ahead onto `mainTip` in the worktree, in queue order, each exactly as
 * its own land will. One that does not integrate (a conflict) is predicted to be refused and left
 * out. Returns the stack and the worktree's HEAD.
 */
export async function integrateAhead(
  wt: Git,
  o: { env: Env; mainTip: string; current: string; ahead: readonly QueueEntry[] },
): Promise<{ stack: Stack; current: string }> {
  const chain: Predicted[] = [];
  const failing = new Set<string>();
  let base = o.mainTip;
  let current = o.current;
  for (const q of o.ahead) {
    try {
      base = current = await integrate(wt, { ...entryIntegration(q, base), env: o.env, current });
      chain.push({ ref: q.ref, item: q.item, entryTip: q.tip, commit: base });
    } catch (e) {
      if (!isRefusal(e) || e.code !== 'conflict') throw e;
      failing.add(`${q.ref} ${q.tip}`);
      current = ''; // wherever the aborted attempt left HEAD, the next integration checks out its start
    }
  }
  return { stack: { mainTip: o.mainTip, chain, failing, parent: base }, current };
}

/**
 * What a tested entry does next, from main's tip now and the live entries now ahead of it:
 * - `land`: main is the parent it tested on and nothing is ahead;
 * - `wait`: main is a prefix of the stack and the rest of the stack is still queued as predicted;
 * - `moved`: main is not on the stack (another push, or an entry that landed otherwise);
 * - `restack`: the entries ahead changed (one left or failed, a late earlier one appeared).
 */
export function judgeStack(stack: Stack, mainNow: string, aheadNow: readonly QueueEntry[]): 'land' | 'wait' | 'moved' | 'restack' {
  const at = [stack.mainTip, ...stack.chain.map((c) => c.commit)].indexOf(mainNow);
  if (at < 0) return 'moved';
  const rest = stack.chain.slice(at);
  const live = aheadNow.filter((q) => !stack.failing.has(`${q.ref} ${q.tip}`));
  if (live.length !== rest.length || live.some((q, k) => q.ref !== rest[k]!.ref || q.tip !== rest[k]!.entryTip)) return 'restack';
  return rest.length === 0 ? 'land' : 'wait';
}
