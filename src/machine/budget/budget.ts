// The computer's model budget pool for lanes (a file on this computer, shared by its lanes). Format:
//
//   <machine dir>/budget/budget.json   one JSON object, only ever replaced whole by rename(2):
//     {"abcd":"budget","v":1,"pool":<set amount>|null,"remaining":<tokens>|null,
//      "spent":<tokens debited since set>,"debits":<count>,"setAt":<ms>|null,"updatedAt":<ms>}
//
// `pool` null means no pool was ever set: lanes are not limited. Every change is a
// read-modify-write under the same lock the load gate uses (gate-lock.ts, in this folder), so
// debits from concurrent lanes on one computer are never lost. Readers without the lock see
// the old or the new file, never half of one.
import { join } from 'node:path';
import { systemClock } from '../../core/deps.js';
import { BudgetExhausted, DeadlineReached } from '../../core/refusals.js';
import { emptyBudget, readBudgetFile, writeBudgetFile, type BudgetState } from './file.js';
import type { Usage } from './usage.js';
import { LockTimeout, withGateLock } from '../gate/lock.js';
import { ensureGateDir } from '../gate/paths.js';
import { systemGateDeps, type GateDeps, type ProcessId } from '../gate/process.js';

export { parseUsageLines, type ParsedUsage, type Usage } from './usage.js';
export type { BudgetState } from './file.js';

// The lock is held for one small file's rewrite; waiting this long means something is wrong.
const LOCK_WAIT_MS = 30_000;

/** The budget's folder inside the machine dir. */
export function budgetDir(machine: string): string {
  return join(machine, 'budget');
}

/** The pool as it stands; a folder or file that is not there is "no pool set". */
export function readBudget(dir: string): BudgetState {
  return readBudgetFile(dir);
}

/** Sets the pool to `tokens` (the whole amount left from now on); `spent` starts again at 0. */
export async function setBudget(
  dir: string,
  tokens: number,
  deps: GateDeps = systemGateDeps(systemClock, process.pid),
): Promise<BudgetState> {
  // The old file is not read: setting the pool is also how a person repairs a broken one.
  return change(dir, deps, (_old, now) => ({ ...emptyBudget(), pool: tokens, remaining: tokens, setAt: now, updatedAt: now }), false);
}

/** Takes `usage` off the pool (a pool never set only counts it). Never lost to a concurrent debit. */
export async function debitBudget(
  dir: string,
  usage: Usage,
  deps: GateDeps = systemGateDeps(systemClock, process.pid),
): Promise<BudgetState> {
  // Sums stay within what the file's schema (and JavaScript's integers) hold: a debit past them
  // is capped rather than written as a number the next reader refuses, which would stop every lane.
  const tokens = Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.floor(usage.tokens)) || 0);
  return change(dir, deps, (s, now) => ({
    ...s,
    remaining: s.remaining === null ? null : Math.max(-Number.MAX_SAFE_INTEGER, s.remaining - tokens),
    spent: Math.min(Number.MAX_SAFE_INTEGER, s.spent + tokens),
    debits: s.debits + 1,
    updatedAt: now,
  }));
}

export type BudgetCheck = { allowed: true; remaining: number | null } | { allowed: false; remaining: number; refusal: BudgetExhausted };

/** Whether a new lane cycle may start: no pool set, or some of it left (above zero). */
export function budgetAllowsCycle(dir: string): BudgetCheck {
  const s = readBudget(dir);
  if (s.remaining === null || s.remaining > 0) return { allowed: true, remaining: s.remaining };
  return {
    allowed: false,
    remaining: s.remaining,
    refusal: new BudgetExhausted(
      `this computer's model budget is used up (${s.remaining} of ${s.pool} tokens left, ${s.spent} spent in ${s.debits} cycle(s)); ` +
        'no new lane cycle starts and nothing was marked done. Ask the person to top it up with "abcd budget set <tokens>".',
      { dir, remaining: s.remaining, pool: s.pool, spent: s.spent },
    ),
  };
}

async function change(dir: string, deps: GateDeps, fn: (s: BudgetState, now: number) => BudgetState, readOld = true): Promise<BudgetState> {
  ensureGateDir(dir);
  const me: ProcessId = { pid: deps.pid, start: deps.startTime(deps.pid) };
  try {
    return await withGateLock(dir, deps, deps.clock.now() + LOCK_WAIT_MS, () => {
      const next = fn(readOld ? readBudgetFile(dir) : emptyBudget(), deps.clock.now());
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
