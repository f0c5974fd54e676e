// budget.json's schema, reading (this version and the one before) and atomic rewriting
// (format documented in budget.ts).
import { randomBytes } from '../../core/builtins.js';
import { parseValue, safeParseValue } from '../../core/schema-parse.js';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { RecordInvalid, RecordTooNew } from '../../core/refusals.js';
import { ownedName } from '../gate/paths.js';
import type { ProcessId } from '../gate/process.js';
import { MAX_COST_USD } from './usage.js';
import { lazySchema } from '../../core/lazy-schema.js';

// v2 added the dollar pool and floors what is left at 0. An abcd that knows only v1 refuses a
// v2 file rather than rewriting it without the dollar limit.
const BUDGET_VERSION = 2;
export const BUDGET_FILE = 'budget.json';

const Tokens = lazySchema(() => z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER));
const Count = lazySchema(() => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER));
const Usd = lazySchema(() => z.number().min(0).max(MAX_COST_USD));

const V1Schema = lazySchema(() =>
  z.object({
    abcd: z.literal('budget'),
    v: z.literal(1),
    pool: Tokens.nullable(),
    remaining: Tokens.nullable(),
    spent: Tokens,
    debits: z.number().int().nonnegative(),
    setAt: z.number().nullable(),
    updatedAt: z.number().nullable(),
  }),
);

const BudgetSchema = lazySchema(() =>
  z.object({
    abcd: z.literal('budget'),
    v: z.literal(BUDGET_VERSION),
    /** Tokens the pool was set to, and what is left; null: no token limit. */
    pool: Count.nullable(),
    remaining: Count.nullable(),
    /** Dollars the pool was set to, and what is left; null: no dollar limit. */
    poolUsd: Usd.nullable(),
    remainingUsd: Usd.nullable(),
    /** Debited since the pool was set (counted with no limit set too). */
    spent: Count,
    spentUsd: Usd,
    debits: Count,
    setAt: z.number().nullable(),
    updatedAt: z.number().nullable(),
  }),
);

export type BudgetState = z.infer<typeof BudgetSchema>;

export function emptyBudget(): BudgetState {
  return {
    abcd: 'budget',
    v: BUDGET_VERSION,
    pool: null,
    remaining: null,
    poolUsd: null,
    remainingUsd: null,
    spent: 0,
    spentUsd: 0,
    debits: 0,
    setAt: null,
    updatedAt: null,
  };
}

export function readBudgetFile(dir: string): BudgetState {
  const path = join(dir, BUDGET_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return emptyBudget();
    throw e;
  }
  const fix = 'Set the pool again with "abcd budget set <tokens>" (it rewrites the file).';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new RecordInvalid(`the model budget's ${path} is not JSON (${(e as Error).message}). ${fix}`, { ref: path, reason: 'not-json' });
  }
  const v = (value as { v?: unknown } | null)?.v;
  if (typeof v === 'number' && v > BUDGET_VERSION) {
    throw new RecordTooNew(
      `the model budget's ${path} is version ${v}, newer than version ${BUDGET_VERSION} that this abcd reads; upgrade abcd.`,
      {
        ref: path,
        kind: 'budget',
        version: v,
        known: BUDGET_VERSION,
      },
    );
  }
  const parsed = v === 1 ? safeParseValue(V1Schema, value) : safeParseValue(BudgetSchema, value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    throw new RecordInvalid(
      `the model budget's ${path} does not match the budget v${v === 1 ? 1 : BUDGET_VERSION} schema (${issues}). ${fix}`,
      {
        ref: path,
        reason: 'schema',
        issues,
      },
    );
  }
  return parsed.data.v === 1 ? fromV1(parsed.data) : parsed.data;
}

/** A v1 pool (tokens only, what is left possibly below 0) as this version states it. */
function fromV1(s: z.infer<typeof V1Schema>): BudgetState {
  const floor = (n: number | null) => (n === null ? null : Math.max(0, n));
  return {
    ...emptyBudget(),
    pool: floor(s.pool),
    remaining: floor(s.remaining),
    spent: Math.max(0, s.spent),
    debits: s.debits,
    setAt: s.setAt,
    updatedAt: s.updatedAt,
  };
}

/** Replaces budget.json atomically: a temp file named after this process, then rename. */
export function writeBudgetFile(dir: string, state: BudgetState, me: ProcessId): void {
  const tmp = join(dir, ownedName('tmp', me, randomBytes(6).toString('hex')) + '.tmp');
  writeFileSync(tmp, JSON.stringify(parseValue(BudgetSchema, state)) + '\n', { flag: 'wx', mode: 0o644 });
  renameSync(tmp, join(dir, BUDGET_FILE));
}
