// `abcd budget [set <n>]`: the computer's model budget pool that lanes debit (machine/budget.ts).
import { readBudget, setBudget, type BudgetState } from './budget.js';
import type { GateDeps } from '../gate/process.js';
import { UsageError } from '../../core/refusals.js';

// Far beyond any real pool; keeps the arithmetic exact.
const MAX_POOL_TOKENS = 1e15;

export interface BudgetInput {
  /** The budget folder: budgetDir(deps.config.machineDir). */
  dir: string;
  /** `set <n>`, or nothing to show the pool. */
  set?: string;
  deps: GateDeps;
}

export interface BudgetResult {
  dir: string;
  state: BudgetState;
  changed: boolean;
}

/** Parses a pool size: a whole number of tokens, `_` or `,` allowed between digits (1_000_000). */
export function parseTokens(text: string): number {
  const clean = text.trim().replace(/(?<=\d)[_,](?=\d)/g, '');
  if (!/^\d{1,16}$/.test(clean) || Number(clean) > MAX_POOL_TOKENS) {
    throw new UsageError(
      // eslint-disable-next-line no-control-regex -- control characters are masked before the text is echoed
      `"${text.slice(0, 40).replace(/[\u0000-\u001f\u007f]/g, '?')}" is not a token count: write a whole number, e.g. abcd budget set 2000000.`,
      'value',
      {
        value: text.slice(0, 40),
      },
    );
  }
  return Number(clean);
}

export async function budget(input: BudgetInput): Promise<BudgetResult> {
  if (input.set === undefined) return { dir: input.dir, state: readBudget(input.dir), changed: false };
  const tokens = parseTokens(input.set);
  return { dir: input.dir, state: await setBudget(input.dir, tokens, input.deps), changed: true };
}
