// Size limits shared by the CLI and the schemas (kept free of zod so --help stays light).

/** Longest free-text note kept on a claim. */
export const MAX_NOTE_CHARS = 500;
