// Which build of abcd this is: the bundle's content hash, which scripts/bundle.mjs writes beside
// its chunks. What a build may remember of its own work (the record tips it checked) is kept
// under this name, so another build, with other schemas or limits, never trusts it.
import { readFileSync } from 'node:fs';
import { unlessSystemError } from './best-effort.js';

const ID = /^[0-9a-f]{16,64}$/;

/** This build's name, or undefined when abcd runs from its sources (tests, tsc output): nothing is remembered then. */
export function buildId(): string | undefined {
  try {
    const id = readFileSync(new URL('./build-id', import.meta.url), 'latin1').trim();
    return ID.test(id) ? id : undefined;
  } catch (e) {
    return unlessSystemError(undefined)(e);
  }
}
