// What an object read answers, shared by the readers (objects.ts, object-reader.ts, tree-diff.ts
// and the loose files' reader) without their importing one another.
import type { GitFailure } from './runner.js';

/** An object `cat-file --batch` returned: its id, type and bytes. */
export interface GitObject {
  oid: string;
  type: string;
  content: Buffer;
}

/** An answer that may have failed the way the caller expects: its value, or how git failed. */
export type Tried<T> = { ok: true; value: T } | { ok: false; failure: GitFailure };
