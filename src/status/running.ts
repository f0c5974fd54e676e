// The lanes working now, one entry per lane (one item each): what it works on, its phase and
// for how long, what its agent used so far, and whose it is in a name short enough to scan.
import type { LaneView } from './lane-views.js';
import { shortHolderNames } from './short-names.js';

export interface RunningLaneView {
  item: string;
  runId: string;
  holder: string;
  /** The holder's name cut to what tells it from the other running lanes' holders. */
  holderShort: string;
  /** agent, checks or landing; absent before the first phase is said. */
  phase?: string;
  forMs: number;
  phaseForMs?: number;
  tokens: number;
  costUsd: number;
}

/** One entry per lane now at work (a run idle between items has none), oldest first. */
export function runningLanes(lanes: readonly LaneView[]): RunningLaneView[] {
  const running = lanes.filter((l) => l.state === 'running');
  const names = shortHolderNames(running.map((l) => l.holder));
  return running.flatMap((l) =>
    l.current.map((c) => ({
      item: c.item,
      runId: l.runId,
      holder: l.holder,
      holderShort: names.get(l.holder) ?? l.holder,
      ...(c.phase ? { phase: c.phase } : {}),
      forMs: c.forMs,
      ...(c.phaseForMs !== undefined ? { phaseForMs: c.phaseForMs } : {}),
      tokens: c.usage ?? 0,
      costUsd: c.costUsd ?? 0,
    })),
  );
}
