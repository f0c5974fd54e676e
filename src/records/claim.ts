import { z } from 'zod';
import { decodeRecord, encodeRecord } from './envelope.js';
import { HolderSchema, PRINTABLE } from './holder.js';

import { MAX_INSTANT_MS, MAX_NOTE_CHARS, MAX_TTL_MS, OID } from './limits.js';

export const ClaimSchema = z.object({
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
  note: z.string().max(MAX_NOTE_CHARS).regex(PRINTABLE).optional(),
  /** The work branch and its head, as last pushed under this claim. */
  branch: z.string().max(255).optional(),
  head: z.string().regex(OID).optional(),
  /** Set with state done: where the work landed. */
  landed: z.object({ main: z.string().max(255), tip: z.string().regex(OID) }).optional(),
});
export type Claim = z.infer<typeof ClaimSchema>;

export function decodeClaim(ref: string, blob: Buffer | string): Claim {
  return decodeRecord(ref, 'claim', ClaimSchema, blob);
}

export function encodeClaim(c: Claim): string {
  return encodeRecord(ClaimSchema.parse(c));
}

export function expiresAt(c: Claim): number {
  return c.at + c.ttl;
}
