// The run's board wired to its listeners: a phase change goes into the run's record (written
// once per change, carrying the usage so far), and every change to whoever watches the run
// (the terminal's live lines). The hooks it returns are the RunContext's.
import type { Clock } from '../../core/deps.js';
import type { RunContext } from '../cycle/context.js';
import { LaneBoard, type BoardChange, type LaneState } from './progress.js';
import type { RunRecorder } from '../logs/recorder.js';

export type ProgressListener = (lanes: readonly LaneState[], change: BoardChange, item: string) => void;

export function watchLanes(clock: Clock, rec: RunRecorder, listener: ProgressListener | undefined): LaneBoard {
  return new LaneBoard(() => clock.now(), {
    phaseChanged: (s) => rec.phase(s.item, { phase: s.phase, at: s.phaseAt, usage: s.usage }),
    ...(listener ? { changed: listener } : {}),
  });
}

/** The RunContext hooks that feed the board. */
export function boardHooks(board: LaneBoard): Pick<RunContext, 'onActivity' | 'onUsage' | 'onPhase'> {
  return {
    onActivity: (item, a) => board.activity(item, a),
    onUsage: (item, u) => board.usage(item, u),
    onPhase: (item, phase) => (phase ? board.phase(item, phase) : board.end(item)),
  };
}
