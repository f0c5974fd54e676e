// What each lane of a run is doing right now: the item, its phase (the agent, the land's checks,
// the rest of landing), since when, the agent's latest tool call or message, and what it used so
// far. Kept in memory for the terminal's live lines; a phase change also goes to the run's record
// (one write per change), activity and usage never do on their own (they change too often).
import { activityText } from '../logs/output-tail.js';
import type { AgentActivity } from '../runtimes/runtime.js';

export type LanePhase = 'agent' | 'checks' | 'landing';

export type { AgentActivity };

/** What an agent used so far in its cycle. */
export interface UsageSoFar {
  tokens: number;
  costUsd: number;
}

export interface LaneState {
  item: string;
  /** When its cycle started, and its current phase. */
  since: number;
  phase: LanePhase;
  phaseAt: number;
  activity?: AgentActivity;
  usage: UsageSoFar;
}

export type BoardChange = 'phase' | 'activity' | 'usage' | 'end';

export interface BoardListeners {
  /** An item entered a phase (its first one included). */
  phaseChanged?(state: LaneState): void;
  /** Anything changed: every lane's state as it is now. */
  changed?(lanes: readonly LaneState[], change: BoardChange, item: string): void;
}

// The activity text kept: a live line shows less; a runaway line is not kept whole.
const MAX_ACTIVITY_CHARS = 200;

export class LaneBoard {
  private readonly states = new Map<string, LaneState>();

  constructor(
    private readonly now: () => number,
    private readonly on: BoardListeners = {},
  ) {}

  lanes(): LaneState[] {
    return [...this.states.values()];
  }

  get(item: string): LaneState | undefined {
    return this.states.get(item);
  }

  phase(item: string, phase: LanePhase): void {
    const at = this.now();
    const was = this.states.get(item);
    if (was?.phase === phase) return;
    const state: LaneState = was
      ? { ...was, phase, phaseAt: at }
      : { item, since: at, phase, phaseAt: at, usage: { tokens: 0, costUsd: 0 } };
    this.states.set(item, state);
    this.on.phaseChanged?.(state);
    this.tell('phase', item);
  }

  activity(item: string, activity: AgentActivity): void {
    const state = this.states.get(item);
    // A runtime's text is the agent's: hostile, and it may quote a token it came across.
    const text = activityText(activity.text, MAX_ACTIVITY_CHARS);
    if (!state || text === '') return;
    this.states.set(item, { ...state, activity: { kind: activity.kind, text } });
    this.tell('activity', item);
  }

  usage(item: string, usage: UsageSoFar): void {
    const state = this.states.get(item);
    if (!state) return;
    this.states.set(item, { ...state, usage: { tokens: Math.max(0, usage.tokens), costUsd: Math.max(0, usage.costUsd) } });
    this.tell('usage', item);
  }

  end(item: string): void {
    if (!this.states.delete(item)) return;
    this.tell('end', item);
  }

  private tell(change: BoardChange, item: string): void {
    try {
      this.on.changed?.(this.lanes(), change, item);
    } catch {
      // best effort: the live lines are the terminal's (a closed one, a display's own fault);
      // whatever they throw, the lane's work and its record go on without them
    }
  }
}
