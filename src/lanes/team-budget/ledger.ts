// The team budget's ledger as pure arithmetic: what a reservation may take, and how one is
// settled (with what its cycle used, or at the amount reserved once its lane is gone). Every
// change here is written back in one compare-and-swap push (pool.ts), so two computers never
// both take the last of the pool, and a reservation leaves `open` exactly once.
import type { Holder } from '../../records/holder.js';
import { MAX_BREAKDOWN_ROWS, MAX_RECENT, type BudgetLedgerRecord, type Reservation, type SpendRow } from '../../records/team-budget.js';
import { addCounts, poolUsd, safeCount, safeUsd } from '../../machine/budget/usage.js';

/** The limit in force: tokens, dollars, or both (null: no limit of that kind). */
export interface TeamLimit {
  /** The limit generation (its commit): the ledger's totals count against it. */
  oid: string;
  tokens: number | null;
  usd: number | null;
  at: number;
  by: Holder;
}

/** A ledger nobody wrote yet, counting against `limit`. */
export function emptyLedger(limit: string | null, at: number, by: Holder): BudgetLedgerRecord {
  return {
    abcd: 'budget-ledger',
    v: 1,
    limit,
    spent: 0,
    spentUsd: 0,
    settled: 0,
    expired: 0,
    open: [],
    byMachine: [],
    byRuntime: [],
    byItem: [],
    recent: [],
    at,
    by,
  };
}

/**
 * The ledger as it counts against `limit`: its own, or, when the person set a new limit since
 * it was written, a fresh one that keeps the reservations still open (they hold real cycles).
 */
export function ledgerFor(l: BudgetLedgerRecord | undefined, limit: TeamLimit, at: number, by: Holder): BudgetLedgerRecord {
  if (l && l.limit === limit.oid) return l;
  return { ...emptyLedger(limit.oid, at, by), open: l ? [...l.open] : [] };
}

/** What the open reservations hold. */
export function reserved(l: BudgetLedgerRecord): { tokens: number; usd: number } {
  return {
    tokens: l.open.reduce((n, r) => addCounts(n, r.tokens), 0),
    usd: poolUsd(l.open.reduce((n, r) => n + r.usd, 0)),
  };
}

/** The limits a new reservation finds used up (spent plus reserved at or past the limit). */
export function exhaustedBy(l: BudgetLedgerRecord, limit: TeamLimit): ('tokens' | 'usd')[] {
  const held = reserved(l);
  return [
    ...(limit.tokens !== null && addCounts(l.spent, held.tokens) >= limit.tokens ? ['tokens' as const] : []),
    ...(limit.usd !== null && poolUsd(l.spentUsd + held.usd) >= limit.usd ? ['usd' as const] : []),
  ];
}

/** The ledger with `r` open. */
export function withReservation(l: BudgetLedgerRecord, r: Reservation): BudgetLedgerRecord {
  return { ...l, open: [...l.open, r] };
}

/** What one cycle used, as the ledger counts it. */
export interface Spent {
  tokens: number;
  usd: number;
}

/**
 * The ledger with reservation `id` settled at `spent`: taken out of `open` and counted once,
 * by machine (its holder's host), runtime and item. `expired`: settled at the amount reserved
 * because its lane did not settle it in time. undefined when it is no longer open.
 */
export function settled(
  l: BudgetLedgerRecord,
  id: string,
  spent: Spent | 'expired',
  at: number,
  by: Holder,
): BudgetLedgerRecord | undefined {
  const r = l.open.find((x) => x.id === id);
  if (!r) return undefined;
  const used = spent === 'expired' ? { tokens: r.tokens, usd: r.usd } : { tokens: safeCount(spent.tokens), usd: safeUsd(spent.usd) };
  return {
    ...counted(l, { machine: r.holder.host, runtime: r.runtime, item: r.item }, used),
    open: l.open.filter((x) => x.id !== id),
    settled: spent === 'expired' ? l.settled : addCounts(l.settled, 1),
    expired: spent === 'expired' ? addCounts(l.expired, 1) : l.expired,
    recent: spent === 'expired' ? l.recent : [...l.recent, used].slice(-MAX_RECENT),
    at,
    by,
  };
}

/** The ledger with usage counted that no reservation held (a cycle's later turns). */
export function charged(l: BudgetLedgerRecord, who: { machine: string; runtime: string; item: string }, used: Spent): BudgetLedgerRecord {
  return counted(l, who, { tokens: safeCount(used.tokens), usd: safeUsd(used.usd) });
}

function counted(l: BudgetLedgerRecord, who: { machine: string; runtime: string; item: string }, used: Spent): BudgetLedgerRecord {
  return {
    ...l,
    spent: addCounts(l.spent, used.tokens),
    spentUsd: poolUsd(l.spentUsd + used.usd),
    byMachine: addRow(l.byMachine, who.machine, used),
    byRuntime: addRow(l.byRuntime, who.runtime, used),
    byItem: addRow(l.byItem, who.item, used),
  };
}

const OTHER = '(other)';

/** A breakdown with `used` added to `name`'s row; past the row cap the smallest fold into "(other)". */
function addRow(rows: readonly SpendRow[], name: string, used: Spent): SpendRow[] {
  const out = rows.map((r) => ({ ...r }));
  const row = out.find((r) => r.name === name) ?? (out.push({ name, tokens: 0, usd: 0, cycles: 0 }), out.at(-1)!);
  row.tokens = addCounts(row.tokens, used.tokens);
  row.usd = poolUsd(row.usd + used.usd);
  row.cycles = addCounts(row.cycles, 1);
  out.sort((a, b) => b.tokens - a.tokens || b.usd - a.usd || a.name.localeCompare(b.name));
  if (out.length <= MAX_BREAKDOWN_ROWS) return out;
  const kept = out.filter((r) => r.name !== OTHER).slice(0, MAX_BREAKDOWN_ROWS - 1);
  const rest = out.filter((r) => !kept.includes(r));
  const other = rest.reduce(
    (o, r) => ({ name: OTHER, tokens: addCounts(o.tokens, r.tokens), usd: poolUsd(o.usd + r.usd), cycles: addCounts(o.cycles, r.cycles) }),
    { name: OTHER, tokens: 0, usd: 0, cycles: 0 },
  );
  return [...kept, other];
}

/** The median of the recent settled cycles' usage, or undefined when none settled yet. */
export function medianRecent(l: BudgetLedgerRecord | undefined): Spent | undefined {
  if (!l?.recent.length) return undefined;
  const mid = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  return { tokens: Math.ceil(mid(l.recent.map((r) => r.tokens))), usd: poolUsd(mid(l.recent.map((r) => r.usd))) };
}
