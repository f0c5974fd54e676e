// One cycle's part in the team budget: reserve before the agent starts, settle with what the
// first run used, charge later turns, and on any other way out settle at the amount reserved
// (usage the cycle could not read is never taken for none).
import type { LanesConfig } from '../../repo/config.js';
import type { Repo } from '../../repo/repo.js';
import type { Snapshot } from '../../repo/snapshot.js';
import { TEAM_BUDGET_REF } from '../../records/refs.js';
import { debitedTokens, safeUsd, type CycleUsage } from '../../machine/budget/usage.js';
import { chargeTeam, reserveTeamCycle, RESERVE_MARGIN_MS, settleTeamCycle, type HeldReservation } from './pool.js';
import { unlessRefusal } from '../../core/best-effort.js';

export interface TeamCycle {
  /** `seen`: the read the cycle's claim was taken on; without a team limit in it nothing more is read. */
  reserve(lanes: LanesConfig | undefined, seen: Snapshot): Promise<void>;
  settle(used: CycleUsage): Promise<void>;
  charge(used: CycleUsage): Promise<void>;
  /** A reservation the cycle did not settle (it failed before reading usage): settled at the amount reserved. */
  abandon(): Promise<void>;
}

export function teamCycle(lane: Repo, o: { runtime: string; item: string; ttlMs: number }): TeamCycle {
  let held: HeldReservation | undefined;
  // Whether the cycle started under a team pool: without one, its later turns charge nothing.
  let pooled = false;
  const spent = (u: CycleUsage) => ({ tokens: debitedTokens(u), usd: safeUsd(u.costUsd) });
  return {
    async reserve(lanes, seen) {
      // No team pool in the read just made: no round trip (one set this instant counts from the next cycle).
      if (!seen.teamBudget && !seen.refused.has(TEAM_BUDGET_REF)) return;
      held = await reserveTeamCycle(lane, {
        runtime: o.runtime,
        item: o.item,
        estimate: {
          ...(lanes?.cycleReserve !== undefined ? { tokens: lanes.cycleReserve } : {}),
          ...(lanes?.cycleReserveUsd !== undefined ? { usd: lanes.cycleReserveUsd } : {}),
        },
        // The agent's own timeout bounds it; the margin covers what runs around it.
        ttlMs: o.ttlMs + RESERVE_MARGIN_MS,
      });
      pooled = held !== undefined;
    },
    async settle(used) {
      const h = held;
      held = undefined;
      if (h) await settleTeamCycle(lane, h, spent(used));
    },
    async charge(used) {
      if (pooled) await chargeTeam(lane, { runtime: o.runtime, item: o.item }, spent(used));
    },
    async abandon() {
      const h = held;
      held = undefined;
      // Best effort: left open, another computer settles it at the same amount after its expiry.
      if (h) await settleTeamCycle(lane, h, { tokens: h.tokens, usd: h.usd }).catch(unlessRefusal(undefined));
    },
  };
}
