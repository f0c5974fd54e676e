// What one cycle tells while it runs, in one place: the agent's and the checks' output go to the
// cycle's log; its phase (agent, checks, landing), what it used and the agent's latest line go to
// the run's hooks (the run's record and the terminal's live lines listen there).
import type { CheckWatch } from '../../land/checks/checks.js';
import type { RunContext } from './context.js';
import type { CycleLog } from './cycle-log.js';
import type { AgentActivity } from '../runtimes/runtime.js';
import { activityText } from '../logs/output-tail.js';
import type { NetworkEvent } from '../../machine/sandbox/sandbox-network.js';
import { networkLine, NetworkTally, type NetworkCounts } from '../../machine/sandbox/network-log.js';

// How much of an unfinished line is held waiting for its end.
const MAX_PARTIAL_CHARS = 4096;

export interface CycleWatch {
  /** What the agent printed (stdout and stderr together). */
  agentOutput(chunk: string): void;
  /** The agent's usage once it is known (the command runtime reports it when the agent exits). */
  used(tokens: number, costUsd?: number): void;
  /** What the runtime says its agent is doing (a tool, a message). */
  activity(a: AgentActivity): void;
  /** The agent works again in the same cycle (a steer, a conflict or a failed check sent back to it). */
  agent(): void;
  /** The agent is done: its work goes to the land queue. */
  landing(): void;
  /** A connection the agent's or a check's sandbox asked for: a line in the log, a count, a refused one in the live line. */
  network(e: NetworkEvent): void;
  /** What the cycle's connections came to so far. */
  networkCounts(): NetworkCounts;
  /** Handed to the land: the checks' output and when they run. */
  readonly checks: CheckWatch;
  /** The cycle is over. */
  end(): void;
}

export function watchCycle(ctx: RunContext, item: string, log: CycleLog | undefined): CycleWatch {
  // A runtime that reads its own stream says what its agent does in its messages; raw output is its JSON.
  const reportsOwnActivity = ctx.runtime.activityInOutput !== true;
  let partial = '';
  const tally = new NetworkTally();
  const network = (e: NetworkEvent) => {
    tally.add(e);
    log?.write(networkLine(e));
    if (!e.allowed) ctx.onActivity?.(item, { kind: 'message', text: `network refused: ${e.method} ${e.target}` });
  };
  ctx.onPhase?.(item, 'agent');
  return {
    network,
    networkCounts: () => tally.counts(),
    agentOutput(chunk) {
      log?.write(chunk);
      ctx.onOutput?.(chunk);
      if (!ctx.onActivity || reportsOwnActivity) return;
      // The command runtime's activity is its last whole line that says something.
      const lines = (partial + chunk).split('\n');
      partial = (lines.pop() ?? '').slice(-MAX_PARTIAL_CHARS);
      const last = lines.map((l) => activityText(l)).findLast((l) => l !== '');
      if (last) ctx.onActivity(item, { kind: 'message', text: last });
    },
    activity(a) {
      ctx.onActivity?.(item, a);
    },
    used(tokens, costUsd = 0) {
      ctx.onUsage?.(item, { tokens, costUsd });
    },
    agent() {
      ctx.onPhase?.(item, 'agent');
    },
    landing() {
      ctx.onPhase?.(item, 'landing');
    },
    checks: {
      running: (on) => {
        log?.mark({ kind: on ? 'checks' : 'checks-end' });
        ctx.onPhase?.(item, on ? 'checks' : 'landing');
      },
      output: (text) => log?.write(text),
      network,
    },
    end() {
      ctx.onPhase?.(item, null);
    },
  };
}
