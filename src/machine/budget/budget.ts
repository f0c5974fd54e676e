// The computer's model budget pool for lanes (a file on this computer, shared by its lanes). Format:
//
//   <machine dir>/budget/budget.json   one JSON object, only ever replaced whole by rename(2):
//     {"abcd":"budget","v":2,"pool":<tokens>|null,"remaining":<tokens>|null,
//      "poolUsd":<dollars>|null,"remainingUsd":<dollars>|null,"spent":<tokens>,"spentUsd":<dollars>,
//      "debits":<count>,"setAt":<ms>|null,"updatedAt":<ms>|null}
//   <machine dir>/budget/spend.jsonl   the last day's debits (spend-log.ts)
//
// A null pool is no limit of that kind; with neither set lanes are not limited and debits are
// only counted. The pool is used up when either limit's remainder reaches 0, where it stays
// (ADR 0074). Every change is a read-modify-write under the same lock the load gate uses, so
// debits from concurrent lanes on one computer are never lost. Readers without the lock see
// the old or the new file, never half of one. Version 1 files (tokens only) still read.
import { join } from 'node:path';
import { systemClock } from '../../core/deps.js';
import { BudgetExhausted, DeadlineReached } from '../../core/refusals.js';
import { emptyBudget, readBudgetFile, writeBudgetFile, type BudgetState } from './file.js';
import { appendSpend } from './spend-log.js';
import { addCounts, debitedTokens, poolUsd, safeCount, safeUsd, type CycleUsage } from './usage.js';
import { LockTimeout, withGateLock } from '../gate/lock.js';
import { ensureGateDir } from '../gate/paths.js';
import { systemGateDeps, type GateDeps, type ProcessId } from '../gate/process.js';

export type { BudgetState } from './file.js';
export type { CycleUsage } from './usage.js';

// The lock is held for two small files' rewrite; waiting this long means something is wrong.
const LOCK_WAIT_MS = 30_000;

/** The budget's folder inside the machine dir. */
export function budgetDir(machine: string): string {
  return join(machine, 'budget');
}

/** The pool as it stands; a folder or file that is not there is "no pool set". */
export function readBudget(dir: string): BudgetState {
  return readBudgetFile(dir);
}

/** A pool's size: tokens, dollars, or both; a kind not named has no limit. */
export interface PoolSize {
  tokens?: number;
  usd?: number;
}

/** Sets the whole pool from now on (a kind not named is unlimited); what was spent starts again at 0. */
export async function setBudget(
  dir: string,
  size: PoolSize,
  deps: GateDeps = systemGateDeps(systemClock, process.pid),
): Promise<BudgetState> {
  const tokens = size.tokens === undefined ? null : safeCount(size.tokens);
  const usd = size.usd === undefined ? null : poolUsd(size.usd);
  // The old file is not read: setting the pool is also how a person repairs a broken one.
  return change(
    dir,
    deps,
    (_old, now) => ({ ...emptyBudget(), pool: tokens, remaining: tokens, poolUsd: usd, remainingUsd: usd, setAt: now, updatedAt: now }),
    false,
  );
}

/** One cycle's usage to take off the pool, and whose it was (for the spend view). */
export interface Debit {
  usage: CycleUsage;
  /** The runtime that reported it: command, claude, codex. */
  runtime: string;
  /** The item the cycle worked on, as results name it (its slug, or the full key). */
  item: string;
}

/**
 * Takes a cycle's tokens and dollars off the pool (a pool never set only counts them) and logs
 * the debit. Never lost to a concurrent debit; sums are capped and what is left floors at 0,
 * so no report, however large, writes a number the next reader refuses. A usage of nothing
 * writes nothing.
 */
export async function debitBudget(
  dir: string,
  debit: Debit,
  deps: GateDeps = systemGateDeps(systemClock, process.pid),
): Promise<BudgetState> {
  const tokens = debitedTokens(debit.usage);
  const usd = safeUsd(debit.usage.costUsd);
  if (tokens === 0 && usd === 0) return readBudget(dir);
  return change(dir, deps, (s, now, me) => {
    appendSpend(dir, { at: now, runtime: debit.runtime, item: debit.item, tokens, usd }, me);
    return {
      ...s,
      remaining: s.remaining === null ? null : Math.max(0, s.remaining - tokens),
      remainingUsd: s.remainingUsd === null ? null : poolUsd(s.remainingUsd - usd),
      spent: addCounts(s.spent, tokens),
      spentUsd: poolUsd(s.spentUsd + usd),
      debits: addCounts(s.debits, 1),
      updatedAt: now,
    };
  });
}

/** Which of the pool's limits are used up (none when no limit is set). */
export function exhaustedKinds(s: BudgetState): ('tokens' | 'usd')[] {
  return [
    ...(s.remaining !== null && s.remaining <= 0 ? ['tokens' as const] : []),
    ...(s.remainingUsd !== null && s.remainingUsd <= 0 ? ['usd' as const] : []),
  ];
}

export type BudgetCheck = { allowed: true; state: BudgetState } | { allowed: false; state: BudgetState; refusal: BudgetExhausted };

/** Whether a new lane cycle may start: no limit set, or some of every set limit left. */
export function budgetAllowsCycle(dir: string): BudgetCheck {
  const s = readBudget(dir);
  const out = exhaustedKinds(s);
  if (out.length === 0) return { allowed: true, state: s };
  const left = [
    ...(s.pool !== null ? [`${s.remaining} of ${s.pool} tokens left`] : []),
    ...(s.poolUsd !== null ? [`$${formatUsd(s.remainingUsd ?? 0)} of $${formatUsd(s.poolUsd)} left`] : []),
  ].join(', ');
  return {
    allowed: false,
    state: s,
    refusal: new BudgetExhausted(
      `this computer's model budget is used up (${left}; ${s.spent} tokens and $${formatUsd(s.spentUsd)} spent in ${s.debits} cycle(s)); ` +
        'no new lane cycle starts and nothing was marked done. Ask the person to top it up with "abcd budget set <tokens>" or "abcd budget set --usd <dollars>".',
      {
        dir,
        exhausted: out,
        remaining: s.remaining,
        pool: s.pool,
        spent: s.spent,
        remainingUsd: s.remainingUsd,
        poolUsd: s.poolUsd,
        spentUsd: s.spentUsd,
      },
    ),
  };
}

/**
 * Whether one more model request of a running cycle may go out (the model gateway asks before
 * each): the pool less what the cycle used and has not been debited for yet must have some of
 * every set limit left. Tokens only: a request's dollars are known only from the runtime, after.
 */
export function budgetAdmitsRequest(dir: string, undebited: CycleUsage): { ok: true } | { ok: false; why: string } {
  const s = readBudget(dir);
  if (s.remaining === null) return { ok: true };
  const left = s.remaining - debitedTokens(undebited);
  if (left > 0) return { ok: true };
  return {
    ok: false,
    why: `this computer's model budget is used up (${s.pool} tokens, ${s.remaining} left before this cycle, which has used ${debitedTokens(undebited)})`,
  };
}

/** Dollars as a person reads them: cents, or four decimals below a dollar. */
export function formatUsd(usd: number): string {
  return usd > 0 && usd < 1 ? usd.toFixed(4) : usd.toFixed(2);
}

async function change(
  dir: string,
  deps: GateDeps,
  fn: (s: BudgetState, now: number, me: ProcessId) => BudgetState,
  readOld = true,
): Promise<BudgetState> {
  ensureGateDir(dir);
  const me: ProcessId = { pid: deps.pid, start: deps.startTime(deps.pid) };
  try {
    return await withGateLock(dir, deps, deps.clock.now() + LOCK_WAIT_MS, () => {
      const next = fn(readOld ? readBudgetFile(dir) : emptyBudget(), deps.clock.now(), me);
      writeBudgetFile(dir, next, me);
      return next;
    });
  } catch (e) {
    if (!(e instanceof LockTimeout)) throw e;
    throw new DeadlineReached(
      `the model budget's lock in ${dir} stayed held for ${LOCK_WAIT_MS / 1000}s by pid(s) ${e.owners.map((o) => o.pid).join(', ')}; ` +
        'nothing was changed. Try again; if it persists, look at those processes.',
      { dir, waitedMs: LOCK_WAIT_MS, owners: e.owners.map((o) => o.pid) },
    );
  }
}
