// The steer request record: schema, encode and decode.
import { z } from 'zod';
import { parseValue } from '../core/schema-parse.js';
import { decodeRecord, encodeRecord } from './envelope.js';
import { HolderSchema } from './holder.js';
import { MAX_INSTANT_MS, MAX_TTL_MS, OID } from './limits.js';
import { lazySchema } from '../core/lazy-schema.js';

/** Longest steer text: a paragraph or a short file, well under the record limit. */
export const MAX_STEER_CHARS = 8000;

/** A steer request's id: the writer's time and random bits (also the last part of its ref). */
export const STEER_ID = /^\d{8}T\d{6}Z-[0-9a-f]{6,16}$/;

/**
 * One request to the lane working on an item (`abcd/steer/<item>/<id>`), written once by
 * `abcd steer` and never rewritten: the lane that delivers it deletes it in the same fenced
 * push that lands the work, next to its receipt. The text is hostile until the envelope
 * builder has sanitized and defanged it; the author is the writer's stated identity.
 */
export const SteerSchema = lazySchema(() =>
  z.object({
    abcd: z.literal('steer'),
    v: z.literal(1),
    id: z.string().regex(STEER_ID),
    item: z.string().min(1).max(200),
    /**
     * The repository it was written for (main's first-parent root commit, as signed settings name
     * it): a signed steer copied from another repository instructs nothing here.
     */
    repository: z.string().regex(OID).optional(),
    author: HolderSchema,
    /** The writer's clock, ms since the epoch. */
    at: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    /** How long an undelivered request stands before pruning may remove it. */
    ttl: z.number().int().min(1000).max(MAX_TTL_MS),
    text: z.string().min(1).max(MAX_STEER_CHARS),
  }),
);
export type SteerRecord = z.infer<typeof SteerSchema>;

export function decodeSteer(ref: string, blob: Buffer | string): SteerRecord {
  return decodeRecord(ref, 'steer', SteerSchema, blob);
}

export function encodeSteer(s: SteerRecord): string {
  return encodeRecord(parseValue(SteerSchema, s));
}
