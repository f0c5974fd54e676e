// One cycle's part in the team budget: reserve before the agent starts, hold more in flight once
// the model requests have spent what it holds (hold.ts), settle with what the first run used,
// charge later turns, and on any other way out settle at the amount reserved (usage the cycle
// could not read is never taken for none).
import type { LanesConfig } from '../../repo/config.js';
import type { Repo } from '../../repo/repo.js';
import type { Snapshot } from '../../repo/snapshot.js';
import { TEAM_BUDGET_REF } from '../../records/refs.js';
import { debitedTokens, safeUsd, type CycleUsage } from '../../machine/budget/usage.js';
import { holdMore, type HoldAnswer } from './hold.js';
import { chargeTeam, reserveTeamCycle, RESERVE_MARGIN_MS, settleTeamCycle, type HeldReservation } from './pool.js';
import { unlessRefusal } from '../../core/best-effort.js';

export interface TeamCycle {
  /** `seen`: the read the cycle's claim was taken on; without a team limit in it nothing more is read. */
  reserve(lanes: LanesConfig | undefined, seen: Snapshot): Promise<void>;
  /**
   * Whether one more model request may go out, `soFar` being what the cycle's requests used so far
   * (every turn): at once while that is below what the ledger holds for the cycle, else after
   * holding one more share on the remote.
   */
  admit(soFar: CycleUsage): Promise<{ ok: true } | { ok: false; why: string }>;
  settle(used: CycleUsage): Promise<void>;
  charge(used: CycleUsage): Promise<void>;
  /** A reservation the cycle did not settle (it failed before reading usage): settled at the amount reserved. */
  abandon(): Promise<void>;
}

/** What a cycle holds of the team pool, and how its asking for more went. */
interface PoolHold {
  held: HeldReservation | undefined;
  // Whether the cycle started under a team pool: without one, its later turns charge nothing.
  pooled: boolean;
  // The cycle's tokens the ledger accounts for: counted as spent, or held open for it.
  counted: number;
  // Holding more is asked for by the shares' half-way mark, so a request seldom waits for it.
  share: number;
  growing: Promise<HoldAnswer> | undefined;
  refused: string | undefined;
  // A share asked for ahead that was not granted: the next one is asked for when the holding runs out.
  aheadRefused: boolean;
}

type CycleOptions = { runtime: string; item: string; ttlMs: number };

export function teamCycle(lane: Repo, o: CycleOptions): TeamCycle {
  const s: PoolHold = { held: undefined, pooled: false, counted: 0, share: 0, growing: undefined, refused: undefined, aheadRefused: false };
  const ttlMs = o.ttlMs + RESERVE_MARGIN_MS;
  const spent = (u: CycleUsage) => ({ tokens: debitedTokens(u), usd: safeUsd(u.costUsd) });
  const grow = (want = s.share) => growHold(lane, o, ttlMs, s, want);
  return {
    async reserve(lanes, seen) {
      // No team pool in the read just made: no round trip (one set this instant counts from the next cycle).
      if (!seen.teamBudget && !seen.refused.has(TEAM_BUDGET_REF)) return;
      s.held = await reserveTeamCycle(lane, {
        runtime: o.runtime,
        item: o.item,
        estimate: {
          ...(lanes?.cycleReserve !== undefined ? { tokens: lanes.cycleReserve } : {}),
          ...(lanes?.cycleReserveUsd !== undefined ? { usd: lanes.cycleReserveUsd } : {}),
        },
        // The agent's own timeout bounds it; the margin covers what runs around it.
        ttlMs,
      });
      s.pooled = s.held !== undefined;
      s.counted = s.held?.tokens ?? 0;
      s.share = s.held?.tokens ?? 0;
    },
    admit: (soFar) => admitRequest(s, grow, soFar),
    async settle(used) {
      await s.growing;
      const h = s.held;
      s.held = undefined;
      s.counted = spent(used).tokens;
      if (h) await settleTeamCycle(lane, h, spent(used));
    },
    async charge(used) {
      if (!s.pooled) return;
      await s.growing;
      const h = s.held;
      s.held = undefined;
      // Later turns that held a share in flight settle it; otherwise they are counted as they are.
      if (h) await settleTeamCycle(lane, h, spent(used));
      else await chargeTeam(lane, { runtime: o.runtime, item: o.item }, spent(used));
      s.counted = s.counted - (h?.tokens ?? 0) + spent(used).tokens;
    },
    async abandon() {
      // A share being held never rejects (grow answers a failure as not held): only a bug would throw here.
      await s.growing;
      const h = s.held;
      s.held = undefined;
      // Best effort: left open, another computer settles it at the same amount after its expiry.
      if (h) await settleTeamCycle(lane, h, { tokens: h.tokens, usd: h.usd }).catch(unlessRefusal(undefined));
    },
  };
}

// One share more (or what the requests already ran past the holding, and a share): never rejects.
function growHold(lane: Repo, o: CycleOptions, ttlMs: number, s: PoolHold, want: number): Promise<HoldAnswer> {
  return (s.growing ??= holdMore(lane, { ...(s.held ? { held: s.held } : {}), share: want, runtime: o.runtime, item: o.item, ttlMs })
    .catch((e: unknown) => ({
      ok: false as const,
      why: `the team pool could not be held (${e instanceof Error ? e.message : String(e)})`,
    }))
    .then((a) => {
      if (a.ok) {
        s.counted += a.held.tokens - (s.held?.tokens ?? 0);
        s.held = a.held;
      }
      return a;
    })
    .finally(() => {
      s.growing = undefined;
    }));
}

/** TeamCycle.admit: at once below what is held, else after holding more. */
async function admitRequest(
  s: PoolHold,
  grow: (want?: number) => Promise<HoldAnswer>,
  soFar: CycleUsage,
): Promise<{ ok: true } | { ok: false; why: string }> {
  if (!s.pooled) return { ok: true };
  const used = debitedTokens(soFar);
  if (used < s.counted) {
    // Half-way through the last share: ask for the next one now, without waiting for it.
    if (!s.aheadRefused && !s.growing && used >= s.counted - s.share / 2)
      void grow().then((a) => {
        s.aheadRefused = !a.ok;
      });
    return { ok: true };
  }
  if (s.refused) return { ok: false, why: s.refused };
  // A share asked for half-way may be under way: wait for it, then ask for what is still short.
  let a = await (s.growing ?? grow(used - s.counted + s.share));
  if (a.ok && used >= s.counted) a = await grow(used - s.counted + s.share);
  if (used < s.counted) return { ok: true };
  s.refused = a.ok ? 'the team pool held no more for this cycle' : a.why;
  return { ok: false, why: s.refused };
}
