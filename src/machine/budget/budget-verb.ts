// `abcd budget [set [<tokens>] [--usd <dollars>]]`: the computer's model budget pool that lanes
// debit (budget.ts), and the last day's spend per runtime and per item (spend-log.ts).
import { readBudget, setBudget, type BudgetState, type PoolSize } from './budget.js';
import { readSpendLog, summarizeSpend, type SpendSummary } from './spend-log.js';
import type { GateDeps } from '../gate/process.js';
import { UsageError } from '../../core/refusals.js';

// Far beyond any real pool; keeps the arithmetic exact.
const MAX_POOL_TOKENS = 1e15;
// Likewise for dollars (a billion is below the file's own cap).
const MAX_POOL_USD = 1e8;

export interface BudgetInput {
  /** The budget folder: budgetDir(deps.config.machineDir). */
  dir: string;
  /** `set <n>` and/or `set --usd <d>`; neither to show the pool. */
  set?: { tokens?: string; usd?: string };
  deps: GateDeps;
}

export interface BudgetResult {
  dir: string;
  state: BudgetState;
  changed: boolean;
  /** The last day's debits, per runtime and per item. */
  spend: SpendSummary;
}

/** Parses a pool size: a whole number of tokens, `_` or `,` allowed between digits (1_000_000). */
export function parseTokens(text: string): number {
  const clean = text.trim().replace(/(?<=\d)[_,](?=\d)/g, '');
  if (!/^\d{1,16}$/.test(clean) || Number(clean) > MAX_POOL_TOKENS) {
    throw new UsageError(`"${shown(text)}" is not a token count: write a whole number, e.g. abcd budget set 2000000.`, 'value', {
      value: text.slice(0, 40),
    });
  }
  return Number(clean);
}

/** Parses a dollar pool: a decimal amount, a leading `$` and `_`/`,` between digits allowed (25, 12.50). */
export function parseUsd(text: string): number {
  const clean = text
    .trim()
    .replace(/^\$/, '')
    .replace(/(?<=\d)[_,](?=\d)/g, '');
  if (!/^\d{1,9}(\.\d{1,6})?$/.test(clean) || Number(clean) > MAX_POOL_USD) {
    throw new UsageError(`"${shown(text)}" is not an amount of dollars: write a number, e.g. abcd budget set --usd 25.`, 'value', {
      value: text.slice(0, 40),
    });
  }
  return Number(clean);
}

export async function budget(input: BudgetInput): Promise<BudgetResult> {
  const result = (state: BudgetState, changed: boolean): BudgetResult => ({
    dir: input.dir,
    state,
    changed,
    spend: summarizeSpend(readSpendLog(input.dir), input.deps.clock.now()),
  });
  if (input.set === undefined) return result(readBudget(input.dir), false);
  const size: PoolSize = {
    ...(input.set.tokens !== undefined ? { tokens: parseTokens(input.set.tokens) } : {}),
    ...(input.set.usd !== undefined ? { usd: parseUsd(input.set.usd) } : {}),
  };
  return result(await setBudget(input.dir, size, input.deps), true);
}

function shown(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are masked before the text is echoed
  return text.slice(0, 40).replace(/[\u0000-\u001f\u007f]/g, '?');
}
