// `abcd budget --team`: the team pool as the remote has it, by machine, runtime and item. Like
// every verb that reads records, it first settles what lapsed (reservations of lanes that are
// gone), in one leased write, so what it shows is what the next cycle anywhere will find.
import { formatHolder } from '../../records/holder.js';
import type { SpendRow } from '../../records/team-budget.js';
import type { Repo } from '../../repo/repo.js';
import { addCounts, poolUsd } from '../../machine/budget/usage.js';
import { exhaustedBy, ledgerFor, reserved } from './ledger.js';
import { readTeamPool, settleLapsed, writeLedger } from './pool.js';
import type { LimitVerdict } from './limit.js';

export interface TeamBudgetView {
  limit: { tokens: number | null; usd: number | null; at: number; by: string; generation: string } | null;
  protected: boolean;
  signers: string;
  ignored?: LimitVerdict['ignored'];
  spent: number;
  spentUsd: number;
  reserved: { tokens: number; usd: number };
  remaining: number | null;
  remainingUsd: number | null;
  exhaustedBy: ('tokens' | 'usd')[];
  settled: number;
  expired: number;
  /** Reservations this read settled at the amount reserved (their lanes were gone). */
  settledNow: number;
  open: {
    id: string;
    holder: string;
    machine: string;
    runtime: string;
    item: string;
    tokens: number;
    usd: number;
    at: number;
    expiresAt: number;
  }[];
  byMachine: SpendRow[];
  byRuntime: SpendRow[];
  byItem: SpendRow[];
}

export async function teamBudgetView(repo: Repo): Promise<TeamBudgetView> {
  const pool = await readTeamPool(repo);
  const limit = pool.verdict.limit;
  const now = repo.deps.clock.now();
  let ledger = limit ? ledgerFor(pool.ledger?.record, limit, now, repo.me) : pool.ledger?.record;
  let settledNow = 0;
  if (limit && ledger) {
    const after = await settleLapsed(repo, pool.snap, ledger);
    // Shown as settled only when the write took; a lost race leaves it to the next reader.
    if (after !== ledger && (await writeLedger(repo, pool.ledger?.tip ?? null, after, 'settle lapsed reservations'))) {
      settledNow = after.expired - ledger.expired;
      ledger = after;
    }
  }
  const held = ledger ? reserved(ledger) : { tokens: 0, usd: 0 };
  const spent = ledger?.spent ?? 0;
  const spentUsd = ledger?.spentUsd ?? 0;
  return {
    limit: limit ? { tokens: limit.tokens, usd: limit.usd, at: limit.at, by: formatHolder(limit.by), generation: limit.oid } : null,
    protected: pool.verdict.protected,
    signers: pool.verdict.signers,
    ...(pool.verdict.ignored ? { ignored: pool.verdict.ignored } : {}),
    spent,
    spentUsd,
    reserved: held,
    remaining: limit?.tokens == null ? null : Math.max(0, limit.tokens - addCounts(spent, held.tokens)),
    remainingUsd: limit?.usd == null ? null : poolUsd(Math.max(0, limit.usd - spentUsd - held.usd)),
    exhaustedBy: limit && ledger ? exhaustedBy(ledger, limit) : [],
    settled: ledger?.settled ?? 0,
    expired: ledger?.expired ?? 0,
    settledNow,
    open: (ledger?.open ?? []).map((r) => ({
      id: r.id,
      holder: formatHolder(r.holder),
      machine: r.holder.host,
      runtime: r.runtime,
      item: r.item,
      tokens: r.tokens,
      usd: r.usd,
      at: r.at,
      expiresAt: r.at + r.ttl,
    })),
    byMachine: ledger?.byMachine ?? [],
    byRuntime: ledger?.byRuntime ?? [],
    byItem: ledger?.byItem ?? [],
  };
}
