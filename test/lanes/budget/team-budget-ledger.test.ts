// The team budget ledger's arithmetic: what a reservation may take, that a settle counts a
// reservation once (with what it used, or at the amount reserved), and that a new limit starts
// the totals again without dropping the cycles still in flight.
import { describe, expect, it } from 'vitest';
import {
  charged,
  emptyLedger,
  exhaustedBy,
  ledgerFor,
  medianRecent,
  reserved,
  settled,
  withReservation,
  type TeamLimit,
} from '../../../src/lanes/team-budget/ledger.js';
import { MAX_BREAKDOWN_ROWS, type Reservation } from '../../../src/records/team-budget.js';

const me = { person: 'p@example.com', host: 'ci-1', session: 's' };
const limit: TeamLimit = { oid: 'a'.repeat(40), tokens: 300, usd: null, at: 0, by: me };
const res = (id: string, tokens = 100): Reservation => ({
  id: `${id}-reservation`,
  holder: me,
  runtime: 'command',
  item: id,
  tokens,
  usd: 1,
  at: 0,
  ttl: 60_000,
});

describe('the team budget ledger', () => {
  it('admits while spent plus reserved is below the limit, and no further', () => {
    let l = ledgerFor(undefined, limit, 0, me);
    for (const id of ['a', 'b']) {
      expect(exhaustedBy(l, limit)).toEqual([]);
      l = withReservation(l, res(id));
    }
    expect(exhaustedBy(l, limit)).toEqual([]);
    l = withReservation(l, res('c'));
    expect(reserved(l)).toEqual({ tokens: 300, usd: 3 });
    expect(exhaustedBy(l, limit)).toEqual(['tokens']);
    // Settling under the estimate frees room; settling over it does not refund the rest.
    l = settled(l, 'a-reservation', { tokens: 40, usd: 0 }, 1, me)!;
    expect(exhaustedBy(l, limit)).toEqual([]);
    expect(l).toMatchObject({ spent: 40, settled: 1, expired: 0 });
  });

  it('counts a reservation exactly once, whichever settles it first', () => {
    const l = withReservation(emptyLedger(limit.oid, 0, me), res('x'));
    const lapsed = settled(l, 'x-reservation', 'expired', 1, me)!;
    expect(lapsed).toMatchObject({ spent: 100, spentUsd: 1, expired: 1, settled: 0, open: [], recent: [] });
    expect(settled(lapsed, 'x-reservation', { tokens: 5, usd: 0 }, 2, me)).toBeUndefined();
    expect(settled(lapsed, 'x-reservation', 'expired', 2, me)).toBeUndefined();
    expect(lapsed.byItem).toEqual([{ name: 'x', tokens: 100, usd: 1, cycles: 1 }]);
    expect(lapsed.byMachine).toEqual([{ name: 'ci-1', tokens: 100, usd: 1, cycles: 1 }]);
  });

  it('a new limit starts the totals again and keeps the reservations in flight', () => {
    let l = withReservation(emptyLedger(limit.oid, 0, me), res('x'));
    l = charged(l, { machine: 'ci-1', runtime: 'command', item: 'y' }, { tokens: 250, usd: 0 });
    expect(exhaustedBy(l, limit)).toEqual(['tokens']);
    const raised = { ...limit, oid: 'b'.repeat(40), tokens: 1000 };
    const next = ledgerFor(l, raised, 5, me);
    expect(next).toMatchObject({ limit: raised.oid, spent: 0, byItem: [] });
    expect(next.open.map((r) => r.id)).toEqual(['x-reservation']);
    expect(ledgerFor(next, raised, 6, me)).toBe(next);
  });

  it('keeps its breakdowns bounded, folding the smallest rows into (other)', () => {
    let l = emptyLedger(limit.oid, 0, me);
    for (let i = 0; i < MAX_BREAKDOWN_ROWS + 30; i++)
      l = charged(l, { machine: 'm', runtime: 'r', item: `item-${i}` }, { tokens: i + 1, usd: 0 });
    expect(l.byItem).toHaveLength(MAX_BREAKDOWN_ROWS);
    expect(l.byItem.at(-1)!.name).toBe('(other)');
    expect(l.byItem.reduce((n, r) => n + r.tokens, 0)).toBe(l.spent);
    expect(l.byItem.reduce((n, r) => n + r.cycles, 0)).toBe(MAX_BREAKDOWN_ROWS + 30);
  });

  it('defaults a reservation to the median of the settled cycles, none before any settled', () => {
    let l = emptyLedger(limit.oid, 0, me);
    expect(medianRecent(l)).toBeUndefined();
    for (const [i, t] of [10, 1000, 30].entries()) {
      l = withReservation(l, res(`r${i}`));
      l = settled(l, `r${i}-reservation`, { tokens: t, usd: t / 100 }, 1, me)!;
    }
    expect(medianRecent(l)).toEqual({ tokens: 30, usd: 0.3 });
  });
});
