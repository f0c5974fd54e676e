// A record schema parses interpreted for its first hundred records in a process, then compiled
// (zod's new Function parser): both must give the same answer for every blob, valid or hostile.
// Its own file, so this process's parse counts start at zero.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeClaim, type Claim } from '../../src/records/claim.js';
import { isRefusal } from '../../src/core/refusals.js';

const REF = 'refs/heads/abcd/claims/local/item/modes';
const holder = { person: 'p@example.com', host: 'h', session: 's' };
const good: Claim = {
  abcd: 'claim',
  v: 1,
  item: 'local:item:modes',
  state: 'held',
  holder,
  gen: 2,
  at: Date.UTC(2026, 10, 30),
  ttl: 60_000,
};

/** One blob's answer as text: the decoded record, or the refusal's code and message. */
function answer(blob: string): string {
  try {
    return `ok ${JSON.stringify(decodeClaim(REF, blob))}`;
  } catch (e) {
    if (!isRefusal(e)) throw e;
    return `${e.code} ${e.message}`;
  }
}

describe('record parsing, interpreted and compiled', () => {
  it('answers every blob the same on its first parse and after the schema has been compiled', () => {
    const keys = [...Object.keys(good), 'futureField', 'holder'];
    const mutation = fc.oneof(
      fc.tuple(fc.constantFrom(...keys), fc.jsonValue()).map(([k, v]) => ({ ...good, [k]: v })),
      fc
        .constantFrom(...keys.filter((k) => k !== 'abcd' && k !== 'v'))
        .map((k) => Object.fromEntries(Object.entries(good).filter(([x]) => x !== k))),
      fc.constant(good),
    );
    const blobs = fc.sample(
      mutation.map((v) => JSON.stringify(v)),
      { seed: 20261201, numRuns: 60 },
    );
    const first = blobs.map(answer);
    // Enough valid envelopes reach the schema that these rounds pass its hundredth parse.
    expect(first.filter((a) => a.startsWith('ok ')).length).toBeGreaterThan(5);
    for (let round = 0; round < 3; round++) expect(blobs.map(answer)).toEqual(first);
  });
});
