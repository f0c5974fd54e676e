// What build and drain show while they run. On a terminal: one live line per working lane (the
// item, its phase, how long its cycle has run, what its agent used so far, and the agent's
// latest tool call or message last, where the width cuts it), redrawn in place. Off a terminal:
// a plain line per phase change only, so a CI log stays short. Under --json: nothing.
import type { Deps } from '../core/deps.js';
import type { LaneState } from '../lanes/run/progress.js';
import type { ProgressListener } from '../lanes/run/run-progress.js';

// The live lines' clock: elapsed times move on at this pace with no event.
const TICK_MS = 1000;
// Output comes in many small chunks: the lines are redrawn at most this often.
const REDRAW_MS = 100;

export interface LaneLines {
  /** The deps the run gets: without the wait line, which the live lines stand in for. */
  deps: Deps;
  onProgress?: ProgressListener;
  /** Removes the live lines (the run is over). */
  stop(): void;
}

export function laneLines(deps: Deps, o: { json: boolean; streaming: boolean }): LaneLines {
  const { progress, ...quiet } = deps;
  const now = () => deps.clock.now();
  if (progress && !o.streaming) return liveLines(quiet, progress, now);
  if (o.json) return { deps: quiet, stop: () => undefined };
  const onProgress: ProgressListener = (lanes, change, item) => {
    const s = lanes.find((l) => l.item === item);
    if (change === 'phase' && s) deps.out.stderr(`abcd: ${laneLine(s, now())}\n`);
  };
  return { deps: quiet, onProgress, stop: () => undefined };
}

function liveLines(quiet: Deps, show: (text: string | null) => void, now: () => number): LaneLines {
  let lanes: readonly LaneState[] = [];
  let drawnAt = 0;
  let pending: NodeJS.Timeout | undefined;
  const draw = () => {
    pending = undefined;
    drawnAt = now();
    show(lanes.length ? lanes.map((l) => laneLine(l, drawnAt)).join('\n') : null);
  };
  const tick = setInterval(draw, TICK_MS);
  tick.unref();
  const onProgress: ProgressListener = (all, change) => {
    lanes = all;
    if (change === 'phase' || change === 'end' || now() - drawnAt >= REDRAW_MS) {
      clearTimeout(pending);
      draw();
    } else pending ??= setTimeout(draw, REDRAW_MS);
  };
  return {
    deps: quiet,
    onProgress,
    stop() {
      clearInterval(tick);
      clearTimeout(pending);
      show(null);
    },
  };
}

/** One lane as a line: `fix-login  checks  1m05s  1200 tokens $0.04  npm test passed`. */
export function laneLine(s: LaneState, at: number): string {
  const cost = s.usage.costUsd ? ` $${s.usage.costUsd.toFixed(2)}` : '';
  const did = s.activity ? `  ${s.activity.kind === 'tool' ? `tool ${s.activity.text}` : s.activity.text}` : '';
  return `${s.item}  ${s.phase}  ${clockTime(at - s.since)}  ${s.usage.tokens} tokens${cost}${did}`;
}

/** Elapsed time as a clock reads: 7s, 1m05s, 2h03m. */
function clockTime(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
}
