// Size limits shared by the CLI and the schemas (kept free of zod so --help stays light).

/** Longest free-text note kept on a claim. */
export const MAX_NOTE_CHARS = 500;

/** Longest claim ttl: a claim that outlives this is a forgotten one, not a long task. */
export const MAX_TTL_MS = 30 * 86_400_000;

/** Latest instant a record may state (year 2200): beyond it a clock or a writer is broken. */
export const MAX_INSTANT_MS = 7_258_118_400_000;

/** A commit or object id (sha1, or sha256). */
export const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
