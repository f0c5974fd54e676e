// Fuzz: record decoding, ref names and item parsing meet hostile input
// with a named refusal or a valid value: never a crash, a stack trace, an unnamed error, or
// a lost record. Each property is bounded in time so the file stays a few seconds under load.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeClaim, encodeClaim, type Claim } from '../../src/records/claim.js';
import { formatItem, parseItem } from '../../src/records/item.js';
import { decodeQueue, encodeQueue, type QueueRecord } from '../../src/records/queue.js';
import { claimRef, classifyRef, isRefSafe, queueRef, RECORD_PREFIX } from '../../src/records/refs.js';
import { decodeSettings } from '../../src/records/settings.js';
import { decodeBudgetLedger, decodeTeamBudget, encodeBudgetLedger, encodeTeamBudget } from '../../src/records/team-budget.js';
import type { BudgetLedgerRecord, TeamBudgetRecord } from '../../src/records/team-budget.js';
import { reportFailure } from '../../src/cli/report.js';
import { RecordInvalid, RecordTooNew, UsageError, isRefusal, type Refusal } from '../../src/core/refusals.js';
import type { RawRecord } from '../../src/records/store.js';
import { buildSnapshot } from '../../src/repo/snapshot.js';
import { unprotectedSettings } from '../../src/repo/settings-trust/trust.js';
import { parseItemFile } from '../../src/items/item-file.js';
import { parseRepoConfig } from '../../src/repo/config.js';
import { readCommandUsage } from '../../src/machine/budget/command-usage.js';
import { debitedTokens } from '../../src/machine/budget/usage.js';

// Stop each property after this long (a pass if nothing failed by then): the machine is shared.
const BOUND = { numRuns: 400, interruptAfterTimeLimit: 1500 } as const;
const NOW = Date.UTC(2026, 10, 30);
const REF = 'refs/heads/abcd/claims/local/item/fuzzed';
const TIP = 'a'.repeat(40);

const holder = { person: 'p@example.com', host: 'h', session: 's' };
const goodClaim: Claim = { abcd: 'claim', v: 1, item: 'local:item:fuzzed', state: 'held', holder, gen: 2, at: NOW, ttl: 60_000 };
const goodQueue = {
  abcd: 'queue' as const,
  v: 1 as const,
  item: 'local:item:fuzzed',
  holder,
  branch: 'work/fuzzed',
  head: 'b'.repeat(40),
  main: 'main',
  strategy: 'rebase' as const,
  at: NOW,
};
const goodSettings = {
  abcd: 'settings',
  v: 1,
  reservationCap: 5,
  defaultTtl: 60_000,
  takeoverDelay: 0,
  doneRetention: 0,
  at: NOW,
  by: holder,
};

/** What a refusal must look like: named, with a message for a person and data naming the ref. */
function expectNamed(e: unknown, ref?: string): asserts e is Refusal {
  if (!isRefusal(e)) throw new Error(`not a named refusal: ${String(e)}`, { cause: e });
  expect(e.code).toMatch(/^[a-z-]+$/);
  expect(e.message.length).toBeGreaterThan(10);
  if (ref !== undefined) expect(e.data.ref).toBe(ref);
  // Rendered as the CLI does: one line, no stack, without --debug.
  let text = '';
  const out = { stdout: (t: string) => (text += t), stderr: (t: string) => (text += t), isTTY: false };
  expect(reportFailure(e, { json: false, debug: false, out })).toBe(e.exit);
  expect(text).not.toMatch(/\n\s+at /);
}

/** A valid record with one field replaced, removed or added: the mutations a hostile writer makes. */
function mutated(base: Record<string, unknown>) {
  const keys = [...Object.keys(base), 'item', 'holder', 'v', 'at', 'futureField', '__proto__', 'constructor'];
  return fc.oneof(
    fc.tuple(fc.constantFrom(...keys), fc.jsonValue()).map(([k, v]) => ({ ...base, [k]: v })),
    fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(base).filter(([x]) => x !== k))),
    fc.dictionary(fc.string(), fc.jsonValue()).map((extra) => ({ ...extra, ...base })),
  );
}

/** Any blob a remote could hold: text, bytes, JSON of any shape, and near-valid records. */
function blobs(base: Record<string, unknown>) {
  return fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    mutated(base).map((v) => JSON.stringify(v)),
    mutated(base).map((v) => JSON.stringify(v).slice(0, -1)),
  );
}

const goodTeamBudget: TeamBudgetRecord = { abcd: 'team-budget', v: 1, tokens: 1000, usd: null, repository: TIP, at: NOW, by: holder };
const reservation = { id: 'abcdefgh12', holder, runtime: 'command', item: 'fuzzed', tokens: 100, usd: 1, at: NOW, ttl: 60_000 };
const goodLedger: BudgetLedgerRecord = {
  abcd: 'budget-ledger',
  v: 1,
  limit: TIP,
  spent: 90,
  spentUsd: 0.5,
  settled: 1,
  expired: 0,
  open: [reservation],
  byMachine: [{ name: 'h', tokens: 90, usd: 0.5, cycles: 1 }],
  byRuntime: [{ name: 'command', tokens: 90, usd: 0.5, cycles: 1 }],
  byItem: [{ name: 'fuzzed', tokens: 90, usd: 0.5, cycles: 1 }],
  recent: [{ tokens: 90, usd: 0.5 }],
  at: NOW,
  by: holder,
};

describe('fuzz: record decoding', () => {
  const kinds = [
    ['claim', goodClaim, (b: Buffer | string) => decodeClaim(REF, b), (v: unknown) => encodeClaim(v as Claim)],
    ['queue', goodQueue, (b: Buffer | string) => decodeQueue(REF, b), (v: unknown) => encodeQueue(v as QueueRecord)],
    ['settings', goodSettings, (b: Buffer | string) => decodeSettings(REF, b), (v: unknown) => JSON.stringify(v)],
    [
      'team-budget',
      goodTeamBudget,
      (b: Buffer | string) => decodeTeamBudget(REF, b),
      (v: unknown) => encodeTeamBudget(v as TeamBudgetRecord),
    ],
    [
      'budget-ledger',
      goodLedger,
      (b: Buffer | string) => decodeBudgetLedger(REF, b),
      (v: unknown) => encodeBudgetLedger(v as BudgetLedgerRecord),
    ],
  ] as const;

  it.each(kinds)('a %s blob decodes to a valid record that survives re-encoding, or is refused by name', (_kind, base, decode, encode) => {
    fc.assert(
      fc.property(blobs(base as Record<string, unknown>), (blob) => {
        let value: unknown;
        try {
          value = decode(blob);
        } catch (e) {
          expectNamed(e, REF);
          expect(e instanceof RecordInvalid || e instanceof RecordTooNew).toBe(true);
          if (e instanceof RecordInvalid) expect(e.data.reason).toEqual(expect.any(String));
          return;
        }
        // Nothing valid is lost: encode and decode again gives the same record, unknown fields included.
        expect(decode(encode(value))).toEqual(value);
      }),
      BOUND,
    );
  });
});

describe('fuzz: the snapshot', () => {
  const anyRef = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 80 }).map((s) => RECORD_PREFIX + s),
    fc
      .constantFrom('claims', 'queue', 'settings', 'lanes')
      .chain((head) =>
        fc.array(fc.string({ maxLength: 12 }), { minLength: 0, maxLength: 4 }).map((parts) => [RECORD_PREFIX + head, ...parts].join('/')),
      ),
  );
  const anyRaw: fc.Arbitrary<RawRecord> = fc.record(
    {
      ref: anyRef,
      tip: fc.stringMatching(/^[0-9a-f]{40}$/),
      blob: blobs(goodClaim).map((b) => Buffer.from(b)),
      oversized: fc.nat(),
      extraFiles: fc.constant(true as const),
    },
    { requiredKeys: ['ref', 'tip'] },
  );

  it('decodes every hostile record into a claim, an entry, a refusal or "unknown", and still reads a good one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyRaw, { maxLength: 12 }), fc.nat({ max: 12 }), async (raws, at) => {
        const good: RawRecord = { ref: REF, tip: TIP, blob: Buffer.from(encodeClaim(goodClaim)) };
        const all = raws.filter((r) => r.ref !== REF);
        all.splice(Math.min(at, all.length), 0, good);
        const snap = await buildSnapshot(all, { readAt: NOW, judge: unprotectedSettings('') });
        expect(snap.claims.get(REF)?.claim).toEqual(goodClaim);
        for (const r of all) {
          const placed =
            snap.claims.has(r.ref) ||
            snap.queue.has(r.ref) ||
            snap.refused.has(r.ref) ||
            snap.unknown.includes(r.ref) ||
            r.ref === 'refs/heads/abcd/settings';
          expect(placed, r.ref).toBe(true);
        }
        for (const x of snap.refused.values()) expectNamed(x.refusal);
      }),
      BOUND,
    );
  });
});

describe('fuzz: ref names and items', () => {
  it('isRefSafe and classifyRef never throw, and a classified ref names a well-formed item', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.string().map((s) => RECORD_PREFIX + s),
        ),
        (ref) => {
          const safe = isRefSafe(ref);
          expect(typeof safe).toBe('boolean');
          // eslint-disable-next-line no-control-regex -- a safe ref must have none of the characters git refuses
          if (safe) expect(ref).not.toMatch(/[\u0000-\u0020\u007f~^:?*[\\]|\.\.|@\{|\/\//);
          const c = classifyRef(ref);
          if (c) expect(ref.startsWith(RECORD_PREFIX)).toBe(true);
          if (c?.item) expect(Object.values(c.item).every((p) => p.length > 0 && !p.includes('/'))).toBe(true);
        },
      ),
      BOUND,
    );
  });

  const itemish = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 120 }),
    fc.stringMatching(/^[a-z0-9._:-]{1,40}$/),
    fc
      .tuple(fc.stringMatching(/^[a-z0-9._-]{1,12}$/), fc.stringMatching(/^[a-z0-9._-]{1,12}$/), fc.stringMatching(/^[a-z0-9._-]{1,12}$/))
      .map((p) => p.join(':')),
  );

  it('an item parses to a key whose refs are safe and round-trip, or is a usage error with a printable message', () => {
    fc.assert(
      fc.property(itemish, (text) => {
        let key;
        try {
          key = parseItem(text);
        } catch (e) {
          expectNamed(e);
          expect(e).toBeInstanceOf(UsageError);
          expect(e.data.reason).toEqual(expect.any(String));
          // eslint-disable-next-line no-control-regex -- the message must carry no control characters
          expect(e.message).not.toMatch(/[\u0000-\u001f\u007f]/);
          return;
        }
        for (const ref of [claimRef(key), queueRef(key)]) {
          expect(isRefSafe(ref), ref).toBe(true);
          expect(classifyRef(ref)?.item).toEqual(key);
        }
        expect(parseItem(formatItem(key))).toEqual(key);
      }),
      BOUND,
    );
  });
});

describe('fuzz: text others wrote (item front matter, the repository config, agents usage lines)', () => {
  const key = parseItem('fuzzed');
  // YAML pieces a hostile item file combines: anchors and aliases (bombs), tags, nesting, flow
  // collections, merge keys, documents, directives and plain noise.
  const yamlPiece = fc.oneof(
    fc.constantFrom(
      '&a [x, x, x]',
      '*a',
      '[*a, *a, *a, *a]',
      '!!binary aGk=',
      '!custom x',
      '!!js/function "f"',
      '<<: *a',
      '? [a]',
      '%YAML 1.2',
    ),
    fc.constantFrom('{', '}', '[', ']', ':', '- ', '---', '...', '"', "'", '|', '>', '#', '@', '`', '\t', '\u0000', '\ufeff'),
    fc.nat({ max: 300 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
  );
  const frontMatter = fc.array(fc.tuple(fc.constantFrom('title', 'status', 'depends_on', 'a', 'b', '__proto__'), yamlPiece), {
    maxLength: 8,
  });

  it('an item file is a document or item-invalid naming its path, whatever its front matter holds', () => {
    fc.assert(
      fc.property(frontMatter, fc.boolean(), (pairs, withTitle) => {
        const lines = pairs.map(([k, v]) => `${k}: ${v}`);
        if (withTitle) lines.unshift('title: t', 'status: ready');
        const text = `---\n${lines.join('\n')}\n---\nbody\n`;
        try {
          const doc = parseItemFile('.abcd/items/fuzzed.md', key, text);
          expect(doc.title.length).toBeGreaterThan(0);
        } catch (e) {
          expectNamed(e);
          expect(e).toMatchObject({ code: 'item-invalid', data: { path: '.abcd/items/fuzzed.md' } });
        }
      }),
      BOUND,
    );
  });

  it('the repository config is a config or a usage error naming the file, whatever its JSON holds', () => {
    const configish = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.jsonValue().map((v) => JSON.stringify({ land: v, lanes: v })),
      fc.nat({ max: 5000 }).map((n) => `{"land":${'['.repeat(n)}${']'.repeat(n)}}`),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    fc.assert(
      fc.property(configish, (text) => {
        try {
          parseRepoConfig(text, '.abcd/config.json on main');
        } catch (e) {
          expectNamed(e);
          expect(e).toBeInstanceOf(UsageError);
          expect(e.data.path).toBe('.abcd/config.json');
        }
      }),
      BOUND,
    );
  });

  it("an agent's usage lines sum to safe integers and finite dollars and count what they ignored; nothing throws", () => {
    const kind = fc.constantFrom('tokens', 'inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'turns', 'costUsd');
    const line = fc.oneof(
      fc.nat().map((n) => `{"tokens":${n}}`),
      fc
        .tuple(kind, fc.oneof(fc.nat(), fc.double(), fc.constantFrom('1e12', '1e300', '-1', '"5"', 'null')))
        .map(([k, v]) => `{"${k}":${v}}`),
      fc.constantFrom(
        '{"tokens":1e12}',
        '{"tokens":1e300}',
        '{"tokens":-1}',
        '{"tokens":"5"}',
        'null',
        '[]',
        '{',
        '{"tokens":1.5}',
        '{"costUsd":1e6}',
      ),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 50 }), (lines) => {
        const text = lines.join('\n');
        const r = readCommandUsage(text);
        for (const n of [
          r.inputTokens,
          r.outputTokens,
          r.cacheReadTokens,
          r.cacheWriteTokens,
          r.otherTokens ?? 0,
          r.turns,
          debitedTokens(r),
        ]) {
          expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
        }
        expect(Number.isFinite(r.costUsd) && r.costUsd >= 0).toBe(true);
        expect(r.ignoredLines ?? 0).toBeLessThanOrEqual(text.split('\n').length);
      }),
      BOUND,
    );
  });
});
