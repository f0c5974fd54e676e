// Every record's envelope: its kind and version, and the refusal of one too new.
import type { z } from 'zod';
import { RecordInvalid, RecordTooNew } from '../core/refusals.js';
import { sanitizeLine } from '../core/sanitize.js';
import { safeParseValue } from '../core/schema-parse.js';

// How much of a parser's own message (which quotes the hostile blob) a refusal repeats.
const MAX_QUOTED_CHARS = 200;

/** The largest record blob abcd will parse; anything bigger is refused unread. */
export const MAX_RECORD_BYTES = 64 * 1024;

/** Which envelope versions this abcd reads, per kind. A higher `v` is refused, naming both versions, never guessed at. */
export const KNOWN_VERSION = {
  claim: 1,
  settings: 1,
  queue: 1,
  pending: 1,
  lane: 1,
  steer: 1,
  receipt: 1,
  announce: 1,
  'team-budget': 1,
  'budget-ledger': 1,
} as const;
export type KnownKind = keyof typeof KNOWN_VERSION;

/**
 * Decodes one record blob read from `ref`. Throws RecordTooNew for a higher version and
 * RecordInvalid for anything else wrong; never returns a partial or empty record.
 */
export function decodeRecord<S extends z.ZodType>(ref: string, kind: KnownKind, schema: S, blob: Buffer | string): z.infer<S> {
  // The ref, the parser's message and zod's issues all quote remote text: sanitized here.
  const shown = sanitizeLine(ref);
  const size = typeof blob === 'string' ? Buffer.byteLength(blob) : blob.length;
  if (size > MAX_RECORD_BYTES) {
    throw new RecordInvalid(
      `record ${shown} is ${size} bytes, over the ${MAX_RECORD_BYTES}-byte limit; it was not read. ` +
        'Delete or rewrite that ref on the remote.',
      { ref, reason: 'oversized', bytes: size },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(blob.toString());
  } catch (e) {
    throw new RecordInvalid(
      `record ${shown} is not JSON (${sanitizeLine((e as Error).message, MAX_QUOTED_CHARS)}). Delete or rewrite that ref on the remote.`,
      { ref, reason: 'not-json' },
    );
  }
  const env = value as { abcd?: unknown; v?: unknown } | null;
  if (!env || typeof env !== 'object' || env.abcd !== kind || !Number.isInteger(env.v)) {
    throw new RecordInvalid(
      `record ${shown} lacks the envelope {"abcd": "${kind}", "v": <integer>}. Delete or rewrite that ref on the remote.`,
      { ref, reason: 'envelope' },
    );
  }
  const known = KNOWN_VERSION[kind];
  if ((env.v as number) > known) {
    throw new RecordTooNew(
      `record ${shown} is ${kind} version ${env.v as number}, newer than version ${known} that this abcd reads; ` +
        'upgrade abcd to act on it.',
      { ref, kind, version: env.v as number, known },
    );
  }
  const parsed = safeParseValue(schema, value);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map(describeIssue).join('; ');
    const shownIssues = sanitizeLine(issues, MAX_QUOTED_CHARS * 2);
    throw new RecordInvalid(
      `record ${shown} does not match the ${kind} v${known} schema (${shownIssues}). Delete or rewrite that ref on the remote.`,
      { ref, reason: 'schema', issues: shownIssues },
    );
  }
  return parsed.data;
}

/** A schema issue as a sentence a person reads, not a pattern: `"note" has control characters`. */
function describeIssue(i: z.core.$ZodIssue): string {
  const field = i.path.length ? `"${i.path.join('.')}"` : 'the record';
  switch (i.code) {
    case 'invalid_type':
      return /received undefined/.test(i.message)
        ? `${field} is missing`
        : `${field} should be ${i.expected === 'object' ? 'an object' : `a ${i.expected}`}`;
    case 'invalid_format':
      return i.format === 'regex'
        ? `${field} holds characters or a form it may not (control characters, a bad id)`
        : `${field} is not a valid ${i.format}`;
    case 'too_big':
      return `${field} is too ${i.origin === 'string' ? 'long' : 'large'} (at most ${String(i.maximum)})`;
    case 'too_small':
      return `${field} is too ${i.origin === 'string' ? 'short' : 'small'} (at least ${String(i.minimum)})`;
    case 'invalid_value':
      return `${field} is not one of ${i.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${field}: ${i.message}`;
  }
}

export function encodeRecord(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

/** The top-level fields of a decoded record that `schema` does not name (kept by a loose schema). */
export function extraFields(schema: { shape: Record<string, unknown> }, value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !Object.hasOwn(schema.shape, k)));
}
