// The team budget on the remote (ADR 0112): one ledger record every lane on every computer
// changes by compare-and-swap. A cycle reserves before its agent starts and settles after it
// with what it used; a reservation whose lane never settled it is settled at the amount
// reserved once it is past its expiry plus the takeover delay, judged as a claim's takeover
// (this reader's own sighting on the monotonic clock). Settling takes the reservation out of
// `open` in the same write that counts it, so it is counted exactly once, never refunded.
import { randomBytes } from '../../core/builtins.js';
import { BUDGET_LEDGER_REF, TEAM_BUDGET_REF } from '../../records/refs.js';
import { encodeBudgetLedger, type BudgetLedgerRecord, type Reservation } from '../../records/team-budget.js';
import { writeRecordCommit } from '../../records/objects.js';
import type { Claim } from '../../records/claim.js';
import { RemoteUnavailable, type BudgetExhausted } from '../../core/refusals.js';
import { contended, exhausted, settledElsewhere, untrustedLimit } from './refusals.js';
import { standing } from '../../claims/rules.js';
import { readClock } from '../../repo/clock-view.js';
import type { Repo } from '../../repo/repo.js';
import { readCachedSnapshot, readSnapshot, type Snapshot } from '../../repo/snapshot.js';
import { poolUsd } from '../../machine/budget/usage.js';
import { judgeTeamLimit, type LimitVerdict } from './limit.js';
import { charged, exhaustedBy, ledgerFor, medianRecent, settled, withReservation, type Spent } from './ledger.js';
import { unlessRefusal } from '../../core/best-effort.js';

/** A reservation when there is no `lanes.cycleReserve` and no settled cycle to take the median of. */
export const DEFAULT_RESERVE_TOKENS = 100_000;
export const DEFAULT_RESERVE_USD = 1;
// Between the reservation and the agent's usage being read: worktree, sandbox, the usage file.
export const RESERVE_MARGIN_MS = 10_000;
// Writes that lose the compare-and-swap to another computer's are tried again this often.
const MAX_CAS_TRIES = 12;
// A settle whose remote cannot be reached keeps trying this long past its reservation's
// expiry plus the takeover delay: by then another computer may have settled it for it.
const SETTLE_GRACE_MS = 30_000;

/** The team pool as one read found it. */
export interface TeamPool {
  snap: Snapshot;
  verdict: LimitVerdict;
  ledger?: { tip: string; record: BudgetLedgerRecord };
}

/** A reservation this lane holds. */
export interface HeldReservation {
  id: string;
  item: string;
  runtime: string;
  tokens: number;
  usd: number;
  at: number;
  ttl: number;
}

/**
 * Reads the team pool; a limit or ledger this abcd cannot read (a newer version, a broken
 * record) is refused, never taken for "no pool" (rule 3).
 */
export async function readTeamPool(repo: Repo, snap?: Snapshot): Promise<TeamPool> {
  snap ??= await readSnapshot(repo);
  for (const ref of [TEAM_BUDGET_REF, BUDGET_LEDGER_REF]) {
    const refused = snap.refused.get(ref);
    if (refused) throw refused.refusal;
  }
  const verdict = await judgeTeamLimit(repo, snap);
  if (verdict.untrusted && verdict.ignored) throw untrustedLimit(verdict.ignored, verdict.signers);
  return { snap, verdict, ...(snap.budgetLedger ? { ledger: snap.budgetLedger } : {}) };
}

/** Whether a new cycle may start by the team pool, from a read already made (no round trip). */
export async function teamAllowsCycle(repo: Repo, snap: Snapshot): Promise<BudgetExhausted | undefined> {
  // The common case, no team pool: nothing to read, no file, no process.
  if (!snap.teamBudget && !snap.refused.has(TEAM_BUDGET_REF) && !snap.refused.has(BUDGET_LEDGER_REF)) return undefined;
  const pool = await readTeamPool(repo, snap);
  const limit = pool.verdict.limit;
  if (!limit) return undefined;
  const ledger = ledgerFor(pool.ledger?.record, limit, repo.deps.clock.now(), repo.me);
  return exhaustedBy(ledger, limit).length ? exhausted(ledger, limit) : undefined;
}

/**
 * Reserves a cycle's estimate from the team pool in one leased push, settling lapsed
 * reservations in the same write. undefined when no team pool is set. Refuses
 * budget-exhausted when spent plus reserved reaches a limit.
 */
export async function reserveTeamCycle(
  repo: Repo,
  o: { runtime: string; item: string; estimate: { tokens?: number; usd?: number }; ttlMs: number },
): Promise<HeldReservation | undefined> {
  for (let i = 0; i < MAX_CAS_TRIES; i++) {
    const pool = await readTeamPool(repo);
    const limit = pool.verdict.limit;
    if (!limit) return undefined;
    const now = repo.deps.clock.now();
    const before = ledgerFor(pool.ledger?.record, limit, now, repo.me);
    const ledger = await settleLapsed(repo, pool.snap, before);
    if (exhaustedBy(ledger, limit).length) {
      // What lapsed is settled even so: the next reader finds it counted.
      if (ledger !== before)
        await writeLedger(repo, pool.ledger?.tip ?? null, ledger, 'settle lapsed reservations').catch(unlessRefusal(false));
      throw exhausted(ledger, limit);
    }
    const median = medianRecent(ledger);
    const r: Reservation = {
      id: randomBytes(9).toString('base64url'),
      holder: repo.me,
      runtime: o.runtime,
      item: o.item,
      tokens: Math.max(1, o.estimate.tokens ?? median?.tokens ?? DEFAULT_RESERVE_TOKENS),
      usd: poolUsd(o.estimate.usd ?? median?.usd ?? DEFAULT_RESERVE_USD),
      at: now,
      ttl: o.ttlMs,
    };
    const next = { ...withReservation(ledger, r), at: now, by: repo.me };
    if (await writeLedger(repo, pool.ledger?.tip ?? null, next, `reserve ${r.tokens} tokens for ${o.item}`)) {
      return { id: r.id, item: r.item, runtime: r.runtime, tokens: r.tokens, usd: r.usd, at: r.at, ttl: r.ttl };
    }
    await repo.deps.clock.sleep(50 + Math.random() * 200 * (i + 1));
  }
  throw contended(MAX_CAS_TRIES);
}

/**
 * Settles this lane's reservation with what its cycle used. A remote out of reach is tried
 * again until the reservation's expiry plus the takeover delay has passed by a margin. When
 * the reservation is no longer open another computer settled it at the amount reserved (this
 * lane was taken for dead): Fenced, and nothing is counted a second time.
 */
export async function settleTeamCycle(repo: Repo, held: HeldReservation, used: Spent): Promise<void> {
  const { clock } = repo.deps;
  let unreachable: RemoteUnavailable | undefined;
  // A settle whose push had an unknown outcome: if the remote has it, this lane's settle counted.
  let attempted: string | undefined;
  const wait = async (e: RemoteUnavailable, i: number) => {
    unreachable = e;
    const giveUpAt = held.at + held.ttl + (await takeoverDelay(repo)) + SETTLE_GRACE_MS;
    if (clock.now() >= giveUpAt) throw e;
    await clock.sleep(Math.min(5000, 500 * (i + 1)));
  };
  for (let i = 0; ; i++) {
    let pool: TeamPool;
    try {
      pool = await readTeamPool(repo);
    } catch (e) {
      if (!(e instanceof RemoteUnavailable)) throw e;
      await wait(e, i);
      continue;
    }
    const now = clock.now();
    const limit = pool.verdict.limit;
    // Against the limit in force: one set since the reservation keeps it open in a fresh ledger.
    const record = pool.ledger && (limit ? ledgerFor(pool.ledger.record, limit, now, repo.me) : pool.ledger.record);
    const next = record && settled(record, held.id, used, now, repo.me);
    if (!next) {
      if (attempted && pool.ledger && (await descends(repo, attempted, pool.ledger.tip))) return;
      throw settledElsewhere(held, unreachable !== undefined);
    }
    try {
      if (await writeLedger(repo, pool.ledger!.tip, next, `settle ${used.tokens} tokens for ${held.item}`)) return;
    } catch (e) {
      if (!(e instanceof RemoteUnavailable)) throw e;
      if (e.data.outcome === 'unknown') attempted = e.data.attemptedTip;
      await wait(e, i);
      continue;
    }
    if (i >= MAX_CAS_TRIES) throw contended(MAX_CAS_TRIES);
    await clock.sleep(50 + Math.random() * 200 * (i + 1));
  }
}

/**
 * Counts usage no reservation held (a cycle's later turns: a land conflict, a failing check).
 * Best effort: without a team pool, or with the remote out of reach, the computer's pool has it.
 */
export async function chargeTeam(repo: Repo, who: { runtime: string; item: string }, used: Spent): Promise<void> {
  if (used.tokens === 0 && used.usd === 0) return;
  for (let i = 0; i < MAX_CAS_TRIES; i++) {
    const pool = await readTeamPool(repo).catch(unlessRefusal(undefined));
    const limit = pool?.verdict.limit;
    if (!pool || !limit) return;
    const now = repo.deps.clock.now();
    const next = {
      ...charged(ledgerFor(pool.ledger?.record, limit, now, repo.me), { machine: repo.me.host, ...who }, used),
      at: now,
      by: repo.me,
    };
    if (await writeLedger(repo, pool.ledger?.tip ?? null, next, `charge ${used.tokens} tokens for ${who.item}`).catch(unlessRefusal(true)))
      return;
  }
}

/**
 * The ledger with every other session's reservation that is past expiry plus the takeover
 * delay, by this reader's own watching, settled at the amount reserved. Nothing clock-based
 * while this clock disagrees with a writer's past the bound.
 */
export async function settleLapsed(repo: Repo, snap: Snapshot, ledger: BudgetLedgerRecord): Promise<BudgetLedgerRecord> {
  if (!ledger.open.length) return ledger;
  const now = repo.deps.clock.now();
  const clock = await readClock(repo);
  let out = ledger;
  for (const r of ledger.open) {
    const key = `${BUDGET_LEDGER_REF}/open/${r.id}`;
    const firstSeen = await repo.sightings.see(key, r.id, now);
    const claim: Claim = { abcd: 'claim', v: 1, item: r.item, state: 'held', holder: r.holder, gen: 0, at: r.at, ttl: r.ttl };
    const st = standing({ ref: key, item: r.item, tip: r.id, claim }, repo.me, now, snap.settings, firstSeen, clock);
    if (st.kind === 'takeable') out = settled(out, r.id, 'expired', now, repo.me) ?? out;
  }
  return out === ledger ? ledger : { ...out, at: now, by: repo.me };
}

/** Writes the ledger on the tip read: true when the remote took it, false when another write came first. */
export async function writeLedger(repo: Repo, lease: string | null, record: BudgetLedgerRecord, message: string): Promise<boolean> {
  const oid = await writeRecordCommit({
    git: repo.git,
    store: repo.objects,
    content: encodeBudgetLedger(record),
    parent: lease,
    message: `budget: ${message}`,
    author: repo.author,
    atMs: record.at,
  });
  try {
    return (await repo.store.push([{ ref: BUDGET_LEDGER_REF, newOid: oid, lease }], { atomic: true })).ok;
  } catch (e) {
    // The push may have landed: say which commit, so a settle can recognise its own write.
    if (e instanceof RemoteUnavailable && e.data.outcome === 'unknown') e.data.attemptedTip = oid;
    throw e;
  }
}

/** Whether `tip` is `oid` or built on it (both in this clone after a read). */
async function descends(repo: Repo, oid: string, tip: string): Promise<boolean> {
  return (await repo.git.refs.isAncestor(oid, tip)) === true;
}

async function takeoverDelay(repo: Repo): Promise<number> {
  // The last read this clone made: the remote is out of reach, and the delay rarely changes.
  return (await readCachedSnapshot(repo)).snap.settings.takeoverDelay;
}
