// The team pool checked in flight (ADR 0126): a cycle may spend what it holds on the remote ledger
// (its reservation) with no read; past it, the next model request waits for one compare-and-swap
// that grows the reservation by a share, never by more than the pool has left. So every token a
// cycle spends is held in the ledger before the request that spends it goes out, except what the
// requests already in flight when the holding ran out come to.
import { randomBytes } from '../../core/builtins.js';
import { RemoteUnavailable } from '../../core/refusals.js';
import { addCounts } from '../../machine/budget/usage.js';
import type { Repo } from '../../repo/repo.js';
import { exhaustedBy, ledgerFor, reserved, withReservation } from './ledger.js';
import { readTeamPool, settleLapsed, writeLedger, type HeldReservation } from './pool.js';

// Writes that lose the compare-and-swap to another computer's are tried again this often.
const MAX_CAS_TRIES = 12;

/** A grown (or new) holding, or why none could be had. */
export type HoldAnswer = { ok: true; held: HeldReservation } | { ok: false; why: string };

/**
 * Holds `share` more tokens for a cycle: `held`'s reservation grown, or (a cycle whose first
 * reservation was settled, running later turns) a new one for the same item. Takes no more than
 * the pool has left (limit less spent less every open reservation); none left is a refusal, as
 * is a reservation another computer settled, a limit lifted, or a remote out of reach.
 */
export async function holdMore(
  repo: Repo,
  o: { held?: HeldReservation; share: number; runtime: string; item: string; ttlMs: number },
): Promise<HoldAnswer> {
  for (let i = 0; i < MAX_CAS_TRIES; i++) {
    let pool;
    try {
      pool = await readTeamPool(repo);
    } catch (e) {
      if (e instanceof RemoteUnavailable) return { ok: false, why: `the team pool on the remote could not be read (${e.message})` };
      throw e;
    }
    const limit = pool.verdict.limit;
    if (!limit) return { ok: false, why: 'the team pool this cycle started under is no longer on the remote' };
    const now = repo.deps.clock.now();
    const ledger = await settleLapsed(repo, pool.snap, ledgerFor(pool.ledger?.record, limit, now, repo.me));
    const mine = o.held && ledger.open.find((r) => r.id === o.held!.id);
    if (o.held && !mine) return { ok: false, why: `this cycle's team reservation ${o.held.id} was settled by another computer` };
    // A dollar-only pool is checked at each cycle's start and end: a request's dollars are known only after it.
    const room = limit.tokens === null ? o.share : limit.tokens - addCounts(ledger.spent, reserved(ledger).tokens);
    if (room <= 0 || exhaustedBy(ledger, limit).length) {
      return {
        ok: false,
        why: `the team's model budget on the remote is used up (${limit.tokens} tokens: ${ledger.spent} spent, ${reserved(ledger).tokens} held by ${ledger.open.length} cycle(s) in flight)`,
      };
    }
    const grant = Math.min(o.share, room);
    const held: HeldReservation = mine
      ? { ...o.held!, tokens: addCounts(mine.tokens, grant) }
      : { id: randomBytes(9).toString('base64url'), item: o.item, runtime: o.runtime, tokens: grant, usd: 0, at: now, ttl: o.ttlMs };
    const open = mine
      ? { ...ledger, open: ledger.open.map((r) => (r.id === mine.id ? { ...r, tokens: held.tokens } : r)) }
      : withReservation(ledger, { ...held, holder: repo.me });
    const message = `hold ${grant} more tokens for ${o.item} in flight`;
    try {
      if (await writeLedger(repo, pool.ledger?.tip ?? null, { ...open, at: now, by: repo.me }, message)) return { ok: true, held };
    } catch (e) {
      // Whether it landed is unknown: this cycle holds no more than before, the bound's safe side.
      if (e instanceof RemoteUnavailable) return { ok: false, why: `the team pool on the remote could not be written (${e.message})` };
      throw e;
    }
    await repo.deps.clock.sleep(50 + Math.random() * 200 * (i + 1));
  }
  return { ok: false, why: `the team ledger kept changing under ${MAX_CAS_TRIES} tries to hold more of it` };
}
