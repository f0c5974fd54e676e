// The land queue entry record: schema, encode and decode.
import { z } from 'zod';
import { parseValue } from '../core/schema-parse.js';
import { decodeRecord, encodeRecord, extraFields } from './envelope.js';
import { HolderSchema } from './holder.js';
import { MAX_INSTANT_MS, OID } from './limits.js';
import { lazySchema } from '../core/lazy-schema.js';

/**
 * How a land brings the work onto main: `rebase` its commits, `merge` them under a merge commit,
 * or `squash` them into one commit that also marks the item done (land/squash.ts).
 */
export const IntegrationStrategySchema = lazySchema(() => z.enum(['rebase', 'merge', 'squash']));
export type IntegrationStrategy = z.infer<typeof IntegrationStrategySchema>;

// The most entries one batch tests together (land.batch's limit).
export const MAX_BATCH = 16;

/** Why a batch's head refused a member: a check failed, or its work did not integrate. */
export const VerdictSchema = lazySchema(() =>
  z.object({
    /** The item of the batch's head that tested it. */
    by: z.string().min(1).max(200),
    /** The tested stack's tip and the main commit it was tested on. */
    tested: z.string().regex(OID),
    base: z.string().regex(OID),
    failure: z.discriminatedUnion('kind', [
      z.object({
        kind: z.literal('check'),
        check: z.string().max(2000),
        exitCode: z.number().int(),
        timedOut: z.boolean(),
        output: z.string().max(8000),
        attempts: z.number().int().min(1).max(100),
      }),
      z.object({ kind: z.literal('conflict'), files: z.array(z.string().max(1000)).max(100) }),
    ]),
  }),
);
export type Verdict = z.infer<typeof VerdictSchema>;

/**
 * A land queue entry (`abcd/queue/<item>`): written in the same atomic push as a claim renewal.
 * Loose: a newer abcd's fields at the same `v` survive a re-enqueue (see ClaimSchema).
 */
export const QueueSchema = lazySchema(() =>
  z.looseObject({
    abcd: z.literal('queue'),
    v: z.literal(1),
    item: z.string().min(1).max(200),
    holder: HolderSchema,
    /** The work branch on the remote and the head to land. */
    branch: z.string().min(1).max(255),
    head: z.string().regex(OID),
    /** The branch it lands on. */
    main: z.string().min(1).max(255),
    /** An abcd that knows fewer strategies refuses the entry as unreadable and skips it (never waits on it). */
    strategy: IntegrationStrategySchema,
    /** Enqueue time on the writer's clock. */
    at: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    /** How urgent the writer said it is (absent: normal). */
    priority: z.enum(['high', 'low']).optional(),
    /** The queue's order is (rank, item): `at` moved by the priority, fixed at enqueue (land/priority.ts). Absent: `at`. */
    rank: z.number().int().nonnegative().max(MAX_INSTANT_MS).optional(),
    /**
     * Written by the head of a batch into its own entry before it tests (land/batch-groups.ts):
     * the entries behind it it tests with, each by its record's tip. An entry listed waits for
     * the batch's outcome instead of testing.
     */
    batch: z
      .object({
        members: z.array(z.object({ ref: z.string().max(300), tip: z.string().regex(OID) })).max(MAX_BATCH),
        /**
         * The head's lease (land/batch-lease.ts): it rewrites its entry more often than this while
         * it runs, counting `beat` up; a reader that watched one tip of the entry this long takes
         * the head for dead and its members take their turn again. Absent: the claim's ttl says.
         */
        lease: z.number().int().min(1000).max(600_000).optional(),
        beat: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
      })
      .optional(),
    /**
     * Written by a batch's head into a member's entry in the push that settles the batch: the
     * member failed, on exactly the tree and main named (never landed). Its own land reports it.
     */
    verdict: VerdictSchema.optional(),
  }),
);
export type QueueRecord = z.infer<typeof QueueSchema>;

/** How urgent a piece of work is: an item's, and its queue entry's (normal is written as none). */
export type Priority = 'high' | 'normal' | 'low';
export const PRIORITIES: readonly Priority[] = ['high', 'normal', 'low'];

export function decodeQueue(ref: string, blob: Buffer | string): QueueRecord {
  return decodeRecord(ref, 'queue', QueueSchema, blob);
}

export function encodeQueue(q: QueueRecord): string {
  return encodeRecord(parseValue(QueueSchema, q));
}

/** The fields of an entry this abcd does not know, to carry into a rewrite of it. */
export function unknownQueueFields(q: QueueRecord): Record<string, unknown> {
  return extraFields(QueueSchema, q);
}
