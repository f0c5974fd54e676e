import type { z } from 'zod';
import { RecordInvalid, RecordTooNew } from '../refusals.js';
import { sanitizeLine } from '../text/sanitize.js';

// How much of a parser's own message (which quotes the hostile blob) a refusal repeats.
const MAX_QUOTED_CHARS = 200;

/** The largest record blob abcd will parse; anything bigger is refused unread. */
export const MAX_RECORD_BYTES = 64 * 1024;

/** Which envelope versions this abcd reads, per kind. A higher `v` is refused (rule 3). */
export const KNOWN_VERSION = { claim: 1, settings: 1, queue: 1, pending: 1, lane: 1 } as const;
export type KnownKind = keyof typeof KNOWN_VERSION;

/**
 * Decodes one record blob read from `ref`. Throws RecordTooNew for a higher version and
 * RecordInvalid for anything else wrong; never returns a partial or empty record.
 */
export function decodeRecord<S extends z.ZodType>(
  ref: string,
  kind: KnownKind,
  schema: S,
  blob: Buffer | string,
): z.infer<S> {
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
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    const shownIssues = sanitizeLine(issues, MAX_QUOTED_CHARS * 2);
    throw new RecordInvalid(
      `record ${shown} does not match the ${kind} v${known} schema (${shownIssues}). Delete or rewrite that ref on the remote.`,
      { ref, reason: 'schema', issues: shownIssues },
    );
  }
  return parsed.data;
}

export function encodeRecord(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

/** The top-level fields of a decoded record that `schema` does not name (kept by a loose schema). */
export function extraFields(schema: { shape: Record<string, unknown> }, value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !Object.hasOwn(schema.shape, k)));
}
