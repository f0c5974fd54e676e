// The team's model budget on the remote (ADR 0112): the person's signed limit, and the ledger
// every lane on every computer reserves from before a cycle and settles into after it.
import { z } from 'zod';
import { decodeRecord, encodeRecord } from './envelope.js';
import { HolderSchema, PRINTABLE } from './holder.js';
import { MAX_INSTANT_MS, MAX_TTL_MS, OID } from './limits.js';
import { lazySchema } from '../core/lazy-schema.js';

/** Far beyond any real pool; keeps the arithmetic exact (as the computer's pool). */
export const MAX_TEAM_TOKENS = 1e15;
export const MAX_TEAM_USD = 1e8;
/** Reservations open at once: one per lane in flight, across every computer. */
export const MAX_OPEN_RESERVATIONS = 256;
/** Rows kept per breakdown (machine, runtime, item); the rest is folded into one "(other)" row. */
export const MAX_BREAKDOWN_ROWS = 100;
/** Settled cycles' usage kept for the median a reservation defaults to. */
export const MAX_RECENT = 21;

const Tokens = lazySchema(() => z.number().int().min(0).max(Number.MAX_SAFE_INTEGER));
const Usd = lazySchema(() => z.number().min(0).max(1e9));
const Name = lazySchema(() => z.string().min(1).max(200).regex(PRINTABLE));

/** The person's limit: a kind not named has no limit. Signed, and names its repository. */
export const TeamBudgetSchema = lazySchema(() =>
  z.object({
    abcd: z.literal('team-budget'),
    v: z.literal(1),
    tokens: z.number().int().min(0).max(MAX_TEAM_TOKENS).nullable(),
    usd: z.number().min(0).max(MAX_TEAM_USD).nullable(),
    /** main's first-parent root commit (ADR 0067): a limit copied from another repository is ignored. */
    repository: z.string().regex(OID),
    at: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    by: HolderSchema,
  }),
);
export type TeamBudgetRecord = z.infer<typeof TeamBudgetSchema>;

/** One cycle's hold on the pool, from before its agent starts until it settles. */
export const ReservationSchema = lazySchema(() =>
  z.object({
    id: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/),
    holder: HolderSchema,
    runtime: Name,
    item: Name,
    tokens: Tokens,
    usd: Usd,
    at: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    ttl: z.number().int().min(1000).max(MAX_TTL_MS),
  }),
);
export type Reservation = z.infer<typeof ReservationSchema>;

/** What was spent through one machine, runtime or item. */
export const SpendRowSchema = lazySchema(() => z.object({ name: Name, tokens: Tokens, usd: Usd, cycles: Tokens }));
export type SpendRow = z.infer<typeof SpendRowSchema>;

export const BudgetLedgerSchema = lazySchema(() =>
  z.object({
    abcd: z.literal('budget-ledger'),
    v: z.literal(1),
    /** The limit generation these totals count against; a new limit starts them again at 0. */
    limit: z.string().regex(OID).nullable(),
    spent: Tokens,
    spentUsd: Usd,
    /** Reservations settled with what their cycle used. */
    settled: Tokens,
    /** Reservations settled at the amount reserved, because their lane never settled them by expiry. */
    expired: Tokens,
    open: z.array(ReservationSchema).max(MAX_OPEN_RESERVATIONS),
    byMachine: z.array(SpendRowSchema).max(MAX_BREAKDOWN_ROWS + 1),
    byRuntime: z.array(SpendRowSchema).max(MAX_BREAKDOWN_ROWS + 1),
    byItem: z.array(SpendRowSchema).max(MAX_BREAKDOWN_ROWS + 1),
    /** The last settled cycles' usage, oldest first: what a reservation defaults to (their median). */
    recent: z.array(z.object({ tokens: Tokens, usd: Usd })).max(MAX_RECENT),
    at: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    by: HolderSchema,
  }),
);
export type BudgetLedgerRecord = z.infer<typeof BudgetLedgerSchema>;

export function decodeTeamBudget(ref: string, blob: Buffer | string): TeamBudgetRecord {
  return decodeRecord(ref, 'team-budget', TeamBudgetSchema, blob);
}

export function encodeTeamBudget(r: TeamBudgetRecord): string {
  return encodeRecord(TeamBudgetSchema.parse(r));
}

export function decodeBudgetLedger(ref: string, blob: Buffer | string): BudgetLedgerRecord {
  return decodeRecord(ref, 'budget-ledger', BudgetLedgerSchema, blob);
}

export function encodeBudgetLedger(r: BudgetLedgerRecord): string {
  return encodeRecord(BudgetLedgerSchema.parse(r));
}
