// Pure pieces: item keys, durations, the takeover rule, porcelain, record decoding.
import { describe, expect, it } from 'vitest';
import { parseItem } from '../../src/records/item.js';
import { claimRef, isRefSafe } from '../../src/records/refs.js';
import { formatDuration, parseDuration } from '../../src/core/duration.js';
import { standing } from '../../src/claims/rules.js';
import { parsePushPorcelain } from '../../src/git/porcelain.js';
import { decodeClaim } from '../../src/records/claim.js';
import { DEFAULT_SETTINGS } from '../../src/records/settings.js';
import { RecordInvalid, RecordTooNew, UsageError } from '../../src/core/refusals.js';

const me = { person: 'me@x', host: 'h', session: 's1' };
const other = { person: 'o@x', host: 'h', session: 's2' };
const entry = (at: number, ttl: number) => ({
  ref: 'refs/heads/abcd/claims/local/item/a',
  item: 'a',
  tip: 'f'.repeat(40),
  claim: { abcd: 'claim' as const, v: 1 as const, item: 'local:item:a', state: 'held' as const, holder: other, gen: 3, at, ttl },
});

describe('items and refs', () => {
  it('maps slugs and keys onto ref-safe names', () => {
    expect(claimRef(parseItem('fix-login'))).toBe('refs/heads/abcd/claims/local/item/fix-login');
    expect(claimRef(parseItem('github:issue:123'))).toBe('refs/heads/abcd/claims/github/issue/123');
    for (const bad of ['', '..', 'a:b', 'a:b:c:d', '-x', 'x.lock', 'a b', 'a~1', 'A', 'x'.repeat(101), 'a/b', 'a.']) {
      expect(() => parseItem(bad), bad).toThrow(UsageError);
    }
    expect(isRefSafe('refs/heads/abcd/x..y')).toBe(false);
    expect(isRefSafe('refs/heads/abcd/x.lock/y')).toBe(false);
  });
});

describe('durations', () => {
  it('parses the four units and refuses anything else', () => {
    expect([parseDuration('500ms'), parseDuration('90s'), parseDuration('5m'), parseDuration('2h')]).toEqual([
      500, 90_000, 300_000, 7_200_000,
    ]);
    for (const bad of ['5', '1.5s', '-1s', 's', '5 m', '1w']) expect(() => parseDuration(bad)).toThrow(UsageError);
    expect(formatDuration(1500)).toBe('1.5s');
  });
});

describe('takeover rule', () => {
  const s = { ...DEFAULT_SETTINGS, takeoverDelay: 10_000 };
  const measured = { aheadAtMost: () => 0 };
  it('a live claim is held; an expired one needs expiry + delay AND an own sighting that old', () => {
    expect(standing(entry(0, 60_000), me, 59_999, s, undefined, measured).kind).toBe('held');
    expect(standing(entry(0, 60_000), me, 65_000, s, 65_000, measured)).toMatchObject({ kind: 'expired', takeableAt: 75_000 });
    // Seen since before expiry: takeable right at expiry + delay.
    expect(standing(entry(0, 60_000), me, 70_000, s, 50_000, measured).kind).toBe('takeable');
    // Past expiry + delay on this clock but first seen just now: must still watch.
    expect(standing(entry(0, 60_000), me, 500_000, s, 499_000, measured)).toMatchObject({ kind: 'expired', takeableAt: 509_000 });
  });
  it('a measured offset moves expiry; an unmeasured clock watches ttl + delay; a clock past the bound may not judge', () => {
    // This clock runs at most 5 s ahead of the holder's: expiry at 65 s on it.
    expect(standing(entry(0, 60_000), me, 70_000, s, 30_000, { aheadAtMost: () => 5000 })).toMatchObject({
      kind: 'expired',
      takeableAt: 75_000,
    });
    // Unmeasured: the record's own `at` says nothing, only this clone's watching counts.
    expect(standing(entry(0, 60_000), me, 500_000, s, 450_000)).toMatchObject({ kind: 'expired', takeableAt: 520_000 });
    expect(standing(entry(0, 60_000), me, 520_000, s, 450_000).kind).toBe('takeable');
    const unsafe = { aheadAtMost: () => 600_000, unsafe: { writer: 'o', lo: 590_000, hi: 600_000, seenAt: 0 } };
    expect(standing(entry(0, 60_000), me, 10_000_000, s, 0, unsafe).kind).toBe('clock-unsafe');
  });
  it('a claim of this session is mine, a released one is free with a lease on its tip', () => {
    const mine = { ...entry(0, 1000), claim: { ...entry(0, 1000).claim, holder: me } };
    expect(standing(mine, me, 10, s, undefined)).toMatchObject({ kind: 'mine', gen: 4 });
    const released = { ...entry(0, 1000), claim: { ...entry(0, 1000).claim, state: 'released' as const } };
    expect(standing(released, me, 10, s, undefined)).toMatchObject({ kind: 'free', lease: 'f'.repeat(40), gen: 4 });
    expect(standing(undefined, me, 10, s, undefined)).toEqual({ kind: 'free', lease: null, gen: 0 });
  });
});

describe('push porcelain', () => {
  it('reads each ref and its rejection reason', () => {
    const out = [
      'To file:///r.git',
      '!\trefs/heads/x:refs/heads/abcd/claims/local/item/a\t[rejected] (stale info)',
      '!\trefs/heads/w:refs/heads/w\t[rejected] (atomic push failed)',
      'Done',
    ].join('\n');
    expect(parsePushPorcelain(out)).toEqual([
      { flag: '!', ref: 'refs/heads/abcd/claims/local/item/a', summary: '[rejected] (stale info)', reason: 'stale info' },
      { flag: '!', ref: 'refs/heads/w', summary: '[rejected] (atomic push failed)', reason: 'atomic push failed' },
    ]);
  });
});

describe('record decoding', () => {
  const good = { abcd: 'claim', v: 1, item: 'local:item:a', state: 'held', holder: me, gen: 0, at: 1, ttl: 1000 };
  it('refuses a newer version naming both, and garbage naming the ref', () => {
    expect(decodeClaim('r', JSON.stringify(good))).toMatchObject({ gen: 0 });
    const tooNew = (() => {
      try {
        decodeClaim('r', JSON.stringify({ ...good, v: 2 }));
      } catch (e) {
        return e;
      }
    })();
    expect(tooNew).toBeInstanceOf(RecordTooNew);
    expect((tooNew as RecordTooNew).data).toMatchObject({ ref: 'r', version: 2, known: 1 });
    expect(() => decodeClaim('r', '[]')).toThrow(RecordInvalid);
    expect(() => decodeClaim('r', JSON.stringify({ ...good, ttl: 5 }))).toThrow(/ttl/);
    expect(() => decodeClaim('r', JSON.stringify({ ...good, v: 1.5 }))).toThrow(RecordInvalid);
  });
});
