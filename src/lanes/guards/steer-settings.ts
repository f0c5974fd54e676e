// Steering's settings for one cycle, from `lanes` in .abcd/config.json at the cycle's run head.
import type { RepoConfig } from '../../repo/config.js';
import { parseDuration } from '../../core/duration.js';
import { CYCLE_OVERHEAD_MS } from '../cycle/context.js';

export interface SteerSettings {
  /** Steers per run and item (envelopes in flight and re-invocations); 0: none. */
  max: number;
  pollMs: number;
  /** Below this much time left in the agent's window the lane settles: the request waits. */
  minRemainingMs: number;
  /** What a cycle needs after the agent (push, land, publish): a re-invocation ends before it. */
  reserveMs: number;
}

// fullsend's defaults (seed 003): two steers per run, five minutes left at least.
const DEFAULT_MAX_STEERS = 2;
const MIN_REMAINING_MS = 5 * 60_000;
// A poll is one fetch round trip; more often would only load the remote.
const DEFAULT_POLL_MS = 10_000;
const MIN_POLL_MS = 500;
const MAX_POLL_MS = 5 * 60_000;

export function steerSettings(config: RepoConfig, agentTimeoutMs: number): SteerSettings {
  const lanes = config.lanes ?? {};
  const poll = lanes.steer?.poll ? parseDuration(lanes.steer.poll, 'lanes.steer.poll') : DEFAULT_POLL_MS;
  return {
    max: lanes.steer?.max ?? DEFAULT_MAX_STEERS,
    pollMs: Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, poll)),
    // A short agent timeout (a test, a quick lane) still leaves room to steer early in the run.
    minRemainingMs: Math.min(MIN_REMAINING_MS, Math.floor(agentTimeoutMs / 4)),
    reserveMs: CYCLE_OVERHEAD_MS,
  };
}

/**
 * Why a steer may not be delivered now, or undefined when it may: the cap reached, or less
 * than `minRemainingMs` left before `windowEnd` (the agent's timeout in flight; the run's
 * deadline less the cycle's reserve for a re-invocation). Either way the request stays open.
 */
export function whyNotSteer(o: {
  spent: number;
  now: number;
  windowEnd: number;
  settings: Pick<SteerSettings, 'max' | 'minRemainingMs'>;
}): string | undefined {
  if (o.spent >= o.settings.max) return `the steer cap of ${o.settings.max} per run was reached`;
  if (o.windowEnd - o.now < o.settings.minRemainingMs)
    return `less than ${Math.round(o.settings.minRemainingMs / 1000)}s were left to steer`;
  return undefined;
}

/** How long a re-invoked agent may run: its own timeout, ending before the run's deadline less the reserve. */
export function reinvokeTimeout(o: { now: number; deadline: number; agentTimeoutMs: number; reserveMs: number }): number {
  return Math.min(o.agentTimeoutMs, o.deadline - o.now - o.reserveMs);
}
