// The announcement record: schema, encode and decode.
import { createHash } from '../core/builtins.js';
import { parseValue } from '../core/schema-parse.js';
import { z } from 'zod';
import { decodeRecord, encodeRecord } from './envelope.js';
import { formatHolder, HolderSchema, PRINTABLE, type Holder } from './holder.js';
import { MAX_INSTANT_MS, MAX_TTL_MS } from './limits.js';
import { lazySchema } from '../core/lazy-schema.js';

export const ANNOUNCE_STATES = ['working', 'blocked', 'done', 'away'] as const;
/** Longest announcement text: one line in status. */
export const MAX_ANNOUNCE_CHARS = 200;

/** A session's short announcement (`abcd/announce/<session>`): fixed-form, expiring on its own. */
export const AnnounceSchema = lazySchema(() =>
  z.object({
    abcd: z.literal('announce'),
    v: z.literal(1),
    holder: HolderSchema,
    state: z.enum(ANNOUNCE_STATES),
    item: z.string().min(1).max(200).regex(PRINTABLE).optional(),
    text: z.string().max(MAX_ANNOUNCE_CHARS).regex(PRINTABLE),
    /** Writer's clock, ms since the epoch; the announcement expires at at + ttl. */
    at: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    ttl: z.number().int().min(1000).max(MAX_TTL_MS),
  }),
);
export type AnnounceRecord = z.infer<typeof AnnounceSchema>;

export function decodeAnnounce(ref: string, blob: Buffer | string): AnnounceRecord {
  return decodeRecord(ref, 'announce', AnnounceSchema, blob);
}

export function encodeAnnounce(a: AnnounceRecord): string {
  return encodeRecord(parseValue(AnnounceSchema, a));
}

/**
 * The ref-name part for a session: its session id made ref-safe, plus a digest of the full
 * identity (person/host/session) so two people's sessions of the same name never share a record.
 */
export function announceKey(h: Holder): string {
  const slug =
    h.session
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'session';
  return `${slug}-${createHash('sha256').update(formatHolder(h)).digest('hex').slice(0, 10)}`;
}
