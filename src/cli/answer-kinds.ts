// The words every --json answer's schema is made of: an instant, a duration, a commit id, a
// claim's state, a queue entry skipped, the signer a request proves.
import { z } from 'zod';

export const Instant = z.iso.datetime({ precision: 3 }).describe('an instant, ISO 8601 UTC with milliseconds');
export const Ms = z.number().int().describe('a duration in milliseconds');
export const Oid = z
  .string()
  .regex(/^[0-9a-f]{40}$/)
  .describe('a commit id');
export const State = z.enum(['held', 'released', 'done']).describe("the claim's state after the verb");
export const Ok = { ok: z.literal(true) };
export const Proven = z.string().describe('the principal the signature proves, or "unverified": the name beside it is only stated');
export const SkippedEntry = z.strictObject({
  item: z.string(),
  ref: z.string(),
  claimRef: z.string(),
  code: z.string(),
  message: z.string(),
});
