// The shape of `abcd budget --json` and `abcd team-budget --json`: the model budget on this
// computer and the team's pool on the remote (answers.ts holds the rest).
import { z } from 'zod';
import { Instant, Ok } from './answer-kinds.js';

const Tokens = z.number().int().nonnegative().describe('a number of model tokens');
const Usd = z.number().nonnegative().describe('dollars');
const SpendTotal = { debits: z.number().int().describe('cycles that debited something'), tokens: Tokens, usd: Usd };
export const budget = z.strictObject({
  ...Ok,
  dir: z.string(),
  pool: Tokens.nullable().describe('null: no token limit'),
  remaining: Tokens.nullable(),
  spent: Tokens,
  poolUsd: Usd.nullable().describe('null: no dollar limit'),
  remainingUsd: Usd.nullable(),
  spentUsd: Usd,
  debits: z.number().int(),
  setAt: Instant.nullable(),
  exhausted: z.boolean(),
  exhaustedBy: z.array(z.enum(['tokens', 'usd'])),
  changed: z.boolean(),
  lastDay: z.strictObject({
    since: Instant,
    ...SpendTotal,
    byRuntime: z.array(z.strictObject({ runtime: z.string(), ...SpendTotal })),
    byItem: z.array(z.strictObject({ item: z.string(), ...SpendTotal })),
    ignoredLines: z.number().int().describe('lines of the spend log that could not be read'),
  }),
});

const SpendRow = z.strictObject({ name: z.string(), tokens: Tokens, usd: Usd, cycles: z.number().int() });
export const teamBudget = z.strictObject({
  ...Ok,
  team: z.literal(true),
  limit: z
    .strictObject({
      tokens: Tokens.nullable(),
      usd: Usd.nullable(),
      at: Instant,
      by: z.string(),
      generation: z.string().describe('the signed limit commit in force'),
    })
    .nullable()
    .describe('null: no team pool (none set, or none validly signed)'),
  protected: z.boolean().describe('false: no allowed-signers list here, so the limit is not checked against your keys'),
  signers: z.string(),
  ignored: z.strictObject({ tip: z.string(), why: z.enum(['unsigned', 'untrusted', 'foreign']) }).optional(),
  spent: Tokens,
  spentUsd: Usd,
  reserved: z.strictObject({ tokens: Tokens, usd: Usd }).describe('what cycles in flight on any computer hold'),
  remaining: Tokens.nullable(),
  remainingUsd: Usd.nullable(),
  exhausted: z.boolean(),
  exhaustedBy: z.array(z.enum(['tokens', 'usd'])),
  settled: z.number().int().describe('reservations settled with what their cycle used'),
  expired: z.number().int().describe('reservations settled at the amount reserved: their lanes never settled them'),
  settledNow: z.number().int(),
  open: z.array(
    z.strictObject({
      id: z.string(),
      holder: z.string(),
      machine: z.string(),
      runtime: z.string(),
      item: z.string(),
      tokens: Tokens,
      usd: Usd,
      at: Instant,
      expiresAt: Instant,
    }),
  ),
  byMachine: z.array(SpendRow),
  byRuntime: z.array(SpendRow),
  byItem: z.array(SpendRow),
  changed: z.boolean(),
});
