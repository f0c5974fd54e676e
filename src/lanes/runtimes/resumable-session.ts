// The session of a CLI that keeps its conversation by resuming it (Codex's thread, Gemini CLI's
// session): the first turn runs the CLI with the item's prompt, and every later turn (a steer
// envelope, a rebase prompt, a check's output) runs it again in the same worktree, resuming the
// conversation its stream named. It has no live input channel: a steer waits for the turn's end.
// Sandboxed with a key, the model gateway holds the key and its answers are the usage; otherwise
// the CLI's own report is. What the command line and environment are is the runtime's.
import type { CycleUsage } from '../../machine/budget/usage.js';
import { startAgent } from '../run/run-agent.js';
import type { GatewayLink } from './gateway-link.js';
import type { AgentSession, CycleAgent, TurnOptions, TurnResult } from './runtime.js';
import { turnProcess } from './turn-process.js';

/** What the session reads of its CLI's stdout and stderr. */
export interface ResumableEvents {
  /** The conversation the stream named, which a later turn resumes. */
  readonly resumeId: string | undefined;
  /** Called when a run has taken the turn's text. */
  onStarted?: () => void;
  feed(chunk: string): void;
  note(text: string): void;
  end(): void;
  takeTail(): string;
  usage(model: string | undefined): CycleUsage;
}

/** One run of the CLI. */
export interface ResumableRun {
  argv: string[];
  env: Record<string, string>;
  /** Written to stdin, which is then closed; without it stdin is closed from the start. */
  input?: string;
}

/** What is the runtime's own in a resumable session. */
export interface ResumableCli {
  /** The turn's tail when a later turn has no conversation to resume. */
  unresumable: string;
  /** The model the CLI's own usage names, when the config says. */
  model: string | undefined;
  /** The run of a turn: the first (`resume` absent) or a later one resuming that conversation. */
  run(text: string, resume: string | undefined): ResumableRun;
}

export class ResumableSession implements AgentSession {
  readonly live = false;

  constructor(
    private readonly a: CycleAgent,
    private readonly events: ResumableEvents,
    private readonly cli: ResumableCli,
    /** The model gateway that holds the key, when the agent is sandboxed. */
    private readonly gateway?: GatewayLink,
  ) {}

  async turn(text: string, o: TurnOptions): Promise<TurnResult> {
    const resume = this.events.resumeId;
    if (o.kind !== 'task' && !resume) {
      // Without its conversation a new run would start over with only this turn's text.
      return { exitCode: 1, timedOut: false, stopped: false, durationMs: 0, outputTail: this.cli.unresumable };
    }
    this.events.onStarted = o.onTaken;
    const run = this.cli.run(text, o.kind === 'task' ? undefined : resume);
    const p = await startAgent({
      argv: run.argv,
      stdin: run.input === undefined ? 'ignore' : 'pipe',
      env: run.env,
      ...turnProcess(this.a, o),
      onStdout: (chunk) => this.events.feed(chunk),
      onStderr: (chunk) => this.events.note(chunk),
    });
    if (run.input !== undefined) p.stdin?.end(run.input);
    const done = await p.done;
    this.events.end();
    this.events.onStarted = undefined;
    return { ...done, outputTail: this.events.takeTail() || done.outputTail };
  }

  steer(): Promise<boolean> {
    // No live channel: the cycle resumes the conversation with the envelope after the turn.
    return Promise.resolve(false);
  }

  /** The API's own counts through the gateway (the CLI's conversation kept as the session); else the CLI's report. */
  usage() {
    const cli = this.events.usage(this.cli.model);
    if (!this.gateway) return Promise.resolve({ ...cli, source: 'runtime' as const });
    const api = this.gateway.usage();
    const named = api.model ?? cli.model;
    return Promise.resolve({ ...api, ...(cli.sessionId ? { sessionId: cli.sessionId } : {}), ...(named ? { model: named } : {}) });
  }

  budgetStop(): string | undefined {
    return this.gateway?.budgetStop();
  }

  async close(): Promise<void> {
    // Each run is gone with its turn; the CLI's home goes with the cycle's folder.
    await this.gateway?.close();
  }
}
