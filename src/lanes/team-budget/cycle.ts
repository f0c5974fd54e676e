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

export function teamCycle(lane: Repo, o: { runtime: string; item: string; ttlMs: number }): TeamCycle {
  let held: HeldReservation | undefined;
  // Whether the cycle started under a team pool: without one, its later turns charge nothing.
  let pooled = false;
  // The cycle's tokens the ledger accounts for: counted as spent, or held open for it.
  let counted = 0;
  // Holding more is asked for by the shares' half-way mark, so a request seldom waits for it.
  let share = 0;
  let growing: Promise<HoldAnswer> | undefined;
  let refused: string | undefined;
  // A share asked for ahead that was not granted: the next one is asked for when the holding runs out.
  let aheadRefused = false;
  const ttlMs = o.ttlMs + RESERVE_MARGIN_MS;
  const spent = (u: CycleUsage) => ({ tokens: debitedTokens(u), usd: safeUsd(u.costUsd) });
  // One share more (or what the requests already ran past the holding, and a share): never rejects.
  const grow = (want = share): Promise<HoldAnswer> =>
    (growing ??= holdMore(lane, { ...(held ? { held } : {}), share: want, runtime: o.runtime, item: o.item, ttlMs })
      .catch((e: unknown) => ({
        ok: false as const,
        why: `the team pool could not be held (${e instanceof Error ? e.message : String(e)})`,
      }))
      .then((a) => {
        if (a.ok) {
          counted += a.held.tokens - (held?.tokens ?? 0);
          held = a.held;
        }
        return a;
      })
      .finally(() => {
        growing = undefined;
      }));
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
        ttlMs,
      });
      pooled = held !== undefined;
      counted = held?.tokens ?? 0;
      share = held?.tokens ?? 0;
    },
    async admit(soFar) {
      if (!pooled) return { ok: true };
      const used = debitedTokens(soFar);
      if (used < counted) {
        // Half-way through the last share: ask for the next one now, without waiting for it.
        if (!aheadRefused && !growing && used >= counted - share / 2)
          void grow().then((a) => {
            aheadRefused = !a.ok;
          });
        return { ok: true };
      }
      if (refused) return { ok: false, why: refused };
      // A share asked for half-way may be under way: wait for it, then ask for what is still short.
      let a = await (growing ?? grow(used - counted + share));
      if (a.ok && used >= counted) a = await grow(used - counted + share);
      if (used < counted) return { ok: true };
      refused = a.ok ? 'the team pool held no more for this cycle' : a.why;
      return { ok: false, why: refused };
    },
    async settle(used) {
      await growing;
      const h = held;
      held = undefined;
      counted = spent(used).tokens;
      if (h) await settleTeamCycle(lane, h, spent(used));
    },
    async charge(used) {
      if (!pooled) return;
      await growing;
      const h = held;
      held = undefined;
      // Later turns that held a share in flight settle it; otherwise they are counted as they are.
      if (h) await settleTeamCycle(lane, h, spent(used));
      else await chargeTeam(lane, { runtime: o.runtime, item: o.item }, spent(used));
      counted = counted - (h?.tokens ?? 0) + spent(used).tokens;
    },
    async abandon() {
      // A share being held never rejects (grow answers a failure as not held): only a bug would throw here.
      await growing;
      const h = held;
      held = undefined;
      // Best effort: left open, another computer settles it at the same amount after its expiry.
      if (h) await settleTeamCycle(lane, h, { tokens: h.tokens, usd: h.usd }).catch(unlessRefusal(undefined));
    },
  };
}
