// One cycle's part in the team budget: reserve before the agent starts, settle with what the
// first run used, charge later turns, and on any other way out settle at the amount reserved
// (usage the cycle could not read is never taken for none).
import type { LanesConfig } from '../../repo/config.js';
import type { Repo } from '../../repo/repo.js';
import { debitedTokens, safeUsd, type CycleUsage } from '../../machine/budget/usage.js';
import { chargeTeam, reserveTeamCycle, RESERVE_MARGIN_MS, settleTeamCycle, type HeldReservation } from './pool.js';

export interface TeamCycle {
  reserve(lanes: LanesConfig | undefined): Promise<void>;
  settle(used: CycleUsage): Promise<void>;
  charge(used: CycleUsage): Promise<void>;
  /** A reservation the cycle did not settle (it failed before reading usage): settled at the amount reserved. */
  abandon(): Promise<void>;
}

export function teamCycle(lane: Repo, o: { runtime: string; item: string; ttlMs: number }): TeamCycle {
  let held: HeldReservation | undefined;
  const spent = (u: CycleUsage) => ({ tokens: debitedTokens(u), usd: safeUsd(u.costUsd) });
  return {
    async reserve(lanes) {
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
    },
    async settle(used) {
      const h = held;
      held = undefined;
      if (h) await settleTeamCycle(lane, h, spent(used));
    },
    async charge(used) {
      await chargeTeam(lane, { runtime: o.runtime, item: o.item }, spent(used));
    },
    async abandon() {
      const h = held;
      held = undefined;
      // Best effort: left open, another computer settles it at the same amount after its expiry.
      if (h) await settleTeamCycle(lane, h, { tokens: h.tokens, usd: h.usd }).catch(() => undefined);
    },
  };
}
