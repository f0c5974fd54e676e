// The lane result record: what a run's cycles did.
import { z } from 'zod';
import { parseValue } from '../core/schema-parse.js';
import { decodeRecord, encodeRecord } from './envelope.js';
import { HolderSchema, PRINTABLE } from './holder.js';
import { MAX_INSTANT_MS, OID } from './limits.js';
import { lazySchema } from '../core/lazy-schema.js';

// A result record stays under the 64 KiB record limit whatever the run did.
export const MAX_RESULT_CYCLES = 200;
const MAX_REASON_CHARS = 500;

const Count = lazySchema(() => z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER));
// Dollars: finite, within what a budget pool holds.
const Usd = lazySchema(() => z.number().nonnegative().max(1e9));

/** What the cycle's agent used, as its runtime reported it (machine/budget/usage.ts's CycleUsage). */
const SpendSchema = lazySchema(() =>
  z.object({
    inputTokens: Count,
    outputTokens: Count,
    cacheReadTokens: Count,
    cacheWriteTokens: Count,
    otherTokens: Count.optional(),
    costUsd: Usd,
    turns: Count,
    model: z.string().max(200).regex(PRINTABLE).optional(),
    sessionId: z.string().max(200).regex(PRINTABLE).optional(),
    ignoredLines: Count.optional(),
    source: z.enum(['api', 'runtime']).optional(),
  }),
);
// A few printable lines; the writer keeps each tail within a byte budget too.
const TailSchema = lazySchema(() => z.array(z.string().max(200).regex(PRINTABLE)).max(12));

const CycleSchema = lazySchema(() =>
  z.object({
    item: z.string().min(1).max(200),
    /** needs-review: the work touched protected paths and waits on its branch for the person (ADR 0103). */
    outcome: z.enum(['landed', 'failed', 'no-change', 'timeout', 'cancelled', 'deferred', 'needs-review']),
    /** Why it did not land, in words (hostile text sanitized before it is written). */
    reason: z.string().max(MAX_REASON_CHARS).regex(PRINTABLE).optional(),
    /** The refusal code behind a failure (conflict, check-failed, fenced ...). */
    code: z.string().max(60).regex(PRINTABLE).optional(),
    startedAt: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    durationMs: z.number().int().nonnegative(),
    agentMs: z.number().int().nonnegative().optional(),
    exitCode: z.number().int().optional(),
    /** main's tip the cycle started from, and the landed revision. */
    runHead: z.string().regex(OID).optional(),
    landed: z.string().regex(OID).optional(),
    /** Tokens the cycle took off the budget (every kind, summed). */
    usage: z.number().nonnegative().optional(),
    /** The same usage by kind, with its cost; absent from older writers and where nothing was reported. */
    spend: SpendSchema.optional(),
    followUp: z.boolean().optional(),
    /** The last lines the agent printed, and the failing check's, scrubbed (the newest cycles only). */
    outputTail: TailSchema.optional(),
    checkTail: TailSchema.optional(),
    /** Where the cycle's work is on the remote when it did not land: its work branch and head. */
    kept: z.object({ branch: z.string().min(1).max(300).regex(PRINTABLE), head: z.string().regex(OID) }).optional(),
    /**
     * What the cycle's sandboxed agent and its checks asked abcd's egress proxy for: connections
     * allowed and refused, and the distinct host:ports (the newest cycles only). Absent unsandboxed
     * and from older writers.
     */
    network: z
      .object({ allowed: Count, refused: Count, hosts: z.array(z.string().max(300).regex(PRINTABLE)).max(16).optional() })
      .optional(),
    /** With outcome needs-review: the protected paths the work changes (the branch is in `kept`). */
    review: z.object({ paths: z.array(z.string().max(500).regex(PRINTABLE)).min(1).max(100) }).optional(),
    /** Turns the agent was given after its first: to resolve a land's conflict, to fix a failing check. */
    resumed: z.object({ conflict: z.number().int().nonnegative(), check: z.number().int().nonnegative() }).optional(),
    /** The land check that failed the cycle, and how it exited (124: its timeout). */
    check: z.object({ name: z.string().max(300).regex(PRINTABLE), exitCode: z.number().int() }).optional(),
    /** The files a conflict with main left unresolved. */
    conflictFiles: z.array(z.string().max(300).regex(PRINTABLE)).max(20).optional(),
  }),
);
export type CycleRecord = z.infer<typeof CycleSchema>;

/** One lane run (`abcd build`, `abcd drain`) = one result, rewritten as the run goes. */
export const LaneResultSchema = lazySchema(() =>
  z.object({
    abcd: z.literal('lane'),
    v: z.literal(1),
    runId: z.string().min(1).max(100).regex(PRINTABLE),
    verb: z.enum(['build', 'drain']),
    holder: HolderSchema,
    lifecycle: z.enum(['once', 'poll', 'timed']),
    lanes: z.number().int().min(1).max(64),
    state: z.enum(['running', 'finished']),
    startedAt: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    /** The writer's clock at this generation; a running record is renewed well before at + ttl. */
    at: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    ttl: z.number().int().min(1000),
    /** The items its lanes work on now. */
    current: z
      .array(
        z.object({
          item: z.string().max(200),
          since: z.number().int().nonnegative(),
          /** What the item's cycle does now (the agent, the land's checks, the rest of landing), since when. */
          phase: z.enum(['agent', 'checks', 'landing']).optional(),
          phaseAt: z.number().int().nonnegative().max(MAX_INSTANT_MS).optional(),
          /** What its agent used so far, as of the last phase change: tokens, and dollars where the runtime says. */
          usage: z.number().nonnegative().optional(),
          costUsd: z.number().nonnegative().optional(),
        }),
      )
      .max(64),
    cycles: z.array(CycleSchema).max(MAX_RESULT_CYCLES),
    /** Work seen but not started (deadline, budget, cycle cap), and pending requests left. */
    deferred: z
      .array(z.object({ item: z.string().max(200), why: z.string().max(MAX_REASON_CHARS).regex(PRINTABLE) }))
      .max(MAX_RESULT_CYCLES),
    /** Tokens all cycles took off the budget. */
    usage: z.number().nonnegative(),
    /** Dollars all cycles cost, as their runtimes reported; absent from older writers. */
    costUsd: Usd.optional(),
    /** What ran its agents (command, claude, codex, ...); absent from older writers. */
    runtime: z.string().min(1).max(40).regex(PRINTABLE).optional(),
    /** lanes.notify's webhook posts: delivered, and given up on after their retries; absent without it. */
    notify: z.object({ sent: Count, failed: Count }).optional(),
    /** How the run ended: ok, or the refusal code that stopped it (budget-exhausted, interrupted). */
    end: z.string().max(60).regex(PRINTABLE).optional(),
    /**
     * The process writing it, in its pid space (boot id and pid namespace): a reader in the same
     * space can tell the run died before its ttl runs out. Absent where the writer's system does
     * not tell (no /proc) and from older writers.
     */
    process: z
      .object({
        space: z.string().min(1).max(100).regex(PRINTABLE),
        pid: z.number().int().positive(),
        start: z
          .string()
          .regex(/^\d{1,20}$/)
          .nullable(),
      })
      .optional(),
  }),
);
export type LaneResultRecord = z.infer<typeof LaneResultSchema>;

export function decodeLaneResult(ref: string, blob: Buffer | string): LaneResultRecord {
  return decodeRecord(ref, 'lane', LaneResultSchema, blob);
}

export function encodeLaneResult(r: LaneResultRecord): string {
  return encodeRecord(parseValue(LaneResultSchema, r));
}
