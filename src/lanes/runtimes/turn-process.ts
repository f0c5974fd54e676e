// What a turn's agent process takes from the cycle and the turn whatever the runtime: the
// sandbox and its plan, the cycle's marker, the turn's timeout and stop, the clock, the log.
import type { AgentProcessOptions } from '../run/run-agent.js';
import type { CycleAgent, TurnOptions } from './runtime.js';

export type TurnProcess = Pick<AgentProcessOptions, 'sandbox' | 'plan' | 'marker' | 'timeoutMs' | 'signal' | 'now' | 'onOutput' | 'onExit'>;

export function turnProcess(a: CycleAgent, o: TurnOptions): TurnProcess {
  return {
    sandbox: a.sandbox,
    plan: a.plan,
    marker: a.marker,
    timeoutMs: o.timeoutMs,
    ...(o.signal ? { signal: o.signal } : {}),
    now: a.now,
    ...(a.onOutput ? { onOutput: a.onOutput } : {}),
    ...(o.onExit ? { onExit: o.onExit } : {}),
  };
}
