// The claim record: schema, encode and decode.
import { z } from 'zod';
import { parseValue } from '../core/schema-parse.js';
import { decodeRecord, encodeRecord, extraFields } from './envelope.js';
import { HolderSchema, PRINTABLE } from './holder.js';

import { MAX_INSTANT_MS, MAX_NOTE_CHARS, MAX_TTL_MS, OID } from './limits.js';
import { lazySchema } from '../core/lazy-schema.js';

// Loose objects: fields a newer abcd added at the same `v` are kept through every rewrite
// (renew, push, release, land, takeover) rather than silently dropped; known fields are
// still validated. A change older readers must not ignore raises `v` instead: a reader refuses a version newer than it knows.
// The protected paths a review names: enough to say what waits; the diff shows every one.
export const MAX_REVIEW_PATHS = 100;
const MAX_REVIEW_PATH_CHARS = 500;

export const ClaimSchema = lazySchema(() =>
  z.looseObject({
    abcd: z.literal('claim'),
    v: z.literal(1),
    item: z.string().min(1).max(200),
    state: z.enum(['held', 'released', 'done']),
    holder: HolderSchema,
    /** Orders generations for display; the tip commit is the fence. */
    gen: z.number().int().nonnegative(),
    /** Writer's clock, ms since the epoch. */
    at: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    /** Time to live from `at`, ms. */
    ttl: z.number().int().min(1000).max(MAX_TTL_MS),
    /** When this holder took the claim (writer's clock): renewals keep it, so status shows age since taken. */
    since: z.number().int().nonnegative().max(MAX_INSTANT_MS).optional(),
    note: z.string().max(MAX_NOTE_CHARS).regex(PRINTABLE).optional(),
    /** The work branch and its head, as last pushed under this claim. */
    branch: z.string().max(255).optional(),
    head: z.string().regex(OID).optional(),
    /** Set with state done: where the work landed, and the checks that passed only on a retry (flaky). */
    landed: z
      .looseObject({
        main: z.string().max(255),
        tip: z.string().regex(OID),
        flaky: z
          .array(z.object({ check: z.string().max(500).regex(PRINTABLE), attempts: z.number().int().min(2).max(100) }))
          .max(20)
          .optional(),
        /** Landed in a batch: the item of the batch's head, which tested and landed it, and how many landed with it. */
        batch: z.object({ by: z.string().min(1).max(200), size: z.number().int().min(1).max(16) }).optional(),
        /**
         * The lane run whose absorbed requests abcd wrote as trailers into `tip`, in this same fenced
         * push: what makes those trailers a receipt (anyone's own commit may carry such lines).
         */
        run: z
          .string()
          .regex(/^[A-Za-z0-9._:-]{1,100}$/)
          .optional(),
      })
      .optional(),
    /**
     * Set on a released generation by a lane whose work touched protected paths (ADR 0103): the
     * work waits on its branch for the person (`abcd review`, `abcd land --approve <run>`), and
     * no lane takes the item meanwhile. A new holder's generation drops it.
     */
    review: z
      .looseObject({
        run: z.string().min(1).max(100).regex(PRINTABLE),
        branch: z.string().min(1).max(255).regex(PRINTABLE),
        head: z.string().regex(OID),
        /** main's tip the work was taken on: the review's diff is base..head. */
        base: z.string().regex(OID),
        paths: z.array(z.string().max(MAX_REVIEW_PATH_CHARS).regex(PRINTABLE)).min(1).max(MAX_REVIEW_PATHS),
      })
      .optional(),
    /**
     * Set by `abcd release --force`: this released generation was written by the person (the
     * holder, at `at`) over another generation, which may not have been readable.
     */
    cleared: z
      .looseObject({
        /** The tip this generation replaced. */
        tip: z.string().regex(OID),
        /** Its holder, when it could be read. */
        holder: HolderSchema.optional(),
        /** Why abcd refused it, when it could not be used (a RecordInvalid reason, record-too-new). */
        refused: z.string().max(64).regex(PRINTABLE).optional(),
      })
      .optional(),
  }),
);
export type Claim = z.infer<typeof ClaimSchema>;

export function decodeClaim(ref: string, blob: Buffer | string): Claim {
  return decodeRecord(ref, 'claim', ClaimSchema, blob);
}

export function encodeClaim(c: Claim): string {
  return encodeRecord(parseValue(ClaimSchema, c));
}

export { expiresAt } from './timed.js';

/** The fields of a claim this abcd does not know (a newer abcd's), to carry into the next generation. */
export function unknownClaimFields(c: Claim): Record<string, unknown> {
  return extraFields(ClaimSchema, c);
}
