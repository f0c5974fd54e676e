// The pending build request record: schema, encode and decode.
import { z } from 'zod';
import { parseValue } from '../core/schema-parse.js';
import { decodeRecord, encodeRecord } from './envelope.js';
import { HolderSchema, PRINTABLE } from './holder.js';
import { MAX_INSTANT_MS, MAX_NOTE_CHARS, MAX_TTL_MS } from './limits.js';
import { lazySchema } from '../core/lazy-schema.js';

/**
 * An item's single pending slot (`abcd/pending/<item>`): the newest follow-up request made
 * while a lane held the item. A newer request replaces it (compare-and-swap on its tip); the
 * active lane takes it after its cycle, or the next build or drain treats it as work.
 */
export const PendingSchema = lazySchema(() =>
  z.object({
    abcd: z.literal('pending'),
    v: z.literal(1),
    item: z.string().min(1).max(200),
    requester: HolderSchema,
    /** The requester's clock, ms since the epoch. */
    at: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    /** How long the request stands unclaimed before pruning may remove it. */
    ttl: z.number().int().min(1000).max(MAX_TTL_MS),
    note: z.string().max(MAX_NOTE_CHARS).regex(PRINTABLE).optional(),
    /** How many requests this slot absorbed (the replaced ones included). */
    coalesced: z.number().int().min(1).max(1_000_000),
  }),
);
export type PendingRecord = z.infer<typeof PendingSchema>;

export function decodePending(ref: string, blob: Buffer | string): PendingRecord {
  return decodeRecord(ref, 'pending', PendingSchema, blob);
}

export function encodePending(p: PendingRecord): string {
  return encodeRecord(parseValue(PendingSchema, p));
}
