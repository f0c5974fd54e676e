// The seam between a lane cycle and the agent it runs. A runtime (the `command` shell
// command, Claude Code, Codex) opens one session per cycle; the cycle drives it in turns: the
// first with the item's prompt, later ones continuing the same session with a steer
// envelope, a rebase prompt or a failing check's output. A live runtime also takes a steer
// while a turn runs. The session reports what the agent used, and leaves nothing running.
import type { CycleUsage } from '../../machine/budget/usage.js';
import type { ModelAdmission } from '../../machine/gateway/model-gateway.js';
import type { Sandbox, SandboxPlan } from '../../machine/sandbox/bwrap.js';
import type { SandboxNetwork } from '../../machine/sandbox/sandbox-network.js';
import type { RuntimeName } from '../../repo/config.js';

export type { RuntimeName };

/** Why a turn runs: the item itself, steers that came, a land that conflicted, a check that failed. */
export type TurnKind = 'task' | 'steer' | 'conflict' | 'check';

/** What the agent is doing, as its runtime saw it: the live line shows the latest. */
export interface AgentActivity {
  kind: 'tool' | 'message';
  /** Hostile text: sanitize before showing it. */
  text: string;
}

/** Everything a runtime is given for one cycle. */
export interface CycleAgent {
  /** The agent's whole environment (built, never inherited); HOME and TMPDIR are the cycle's own. */
  env: Record<string, string>;
  sandbox: Sandbox;
  plan: SandboxPlan;
  /**
   * The sandbox's network (absent unsandboxed): a runtime lets its proxy reach its model's API,
   * or forwards an in-sandbox loopback address to a host socket of its own (a model gateway).
   */
  network?: Pick<SandboxNetwork, 'allow' | 'forward'>;
  /**
   * Asked by the model gateway before each request of a built-in runtime, with what the cycle
   * used so far as the API answered: a reason stops that request (the budget is used up).
   */
  admitModel?: (cycleSoFar: CycleUsage) => ModelAdmission | Promise<ModelAdmission>;
  /** `NAME=value` only this cycle's processes carry: swept when no pid namespace could be had. */
  marker: string;
  /** The cycle's private folder outside the worktree (writable by the agent; gone with the cycle). */
  cycleDir: string;
  /** The `command` runtime's steer channel (ABCD_MAILBOX) and usage lines (ABCD_USAGE). */
  mailbox: string;
  usageFile: string;
  /** Where the current turn's text is written for the `command` runtime (ABCD_PROMPT). */
  promptFile: string;
  now: () => number;
  /** The agent's raw output as it comes (the cycle's log, an attended build). */
  onOutput?: (chunk: string) => void;
  onActivity?: (a: AgentActivity) => void;
}

/** How one turn ended. */
export interface TurnResult {
  exitCode: number;
  timedOut: boolean;
  stopped: boolean;
  durationMs: number;
  /** The end of what the agent printed or said, for the result's reason (scrubbed by the cycle). */
  outputTail: string;
  /** Why the agent got no answer from its model, when the turn ended while it was still retrying (names the host and the last error). */
  modelUnanswered?: string;
}

export interface TurnOptions {
  kind: TurnKind;
  timeoutMs: number;
  /** Aborted on a stop or a lost claim: the agent is stopped with everything it started. */
  signal?: AbortSignal;
  /** Called as soon as the turn's agent is done (before its pipes are drained). */
  onExit?: () => void;
  /** The steer envelope inside this turn's text, if any (the `command` runtime also appends it to ABCD_MAILBOX). */
  envelope?: string;
  /** Called once the agent has taken this turn's text: the steers in it count as delivered from then on. */
  onTaken?: () => void;
}

export interface AgentSession {
  /** Whether `steer` reaches the agent while a turn runs; otherwise steers wait for the turn's end. */
  readonly live: boolean;
  /** Runs one turn: the first is the task's prompt, later ones continue the same session with `text`. */
  turn(text: string, o: TurnOptions): Promise<TurnResult>;
  /**
   * While a turn runs (live sessions only): hands one envelope to the agent; true once the
   * agent's own stream shows it was taken, false when it could not be (it stays undelivered).
   */
  steer(envelope: string): Promise<boolean>;
  /** What the agent used so far in this cycle: the API's answers through the gateway, else the runtime's own messages. */
  usage(): Promise<CycleUsage>;
  /** Why the model gateway stopped a request for the budget this cycle, if it did. */
  budgetStop?(): string | undefined;
  /** Ends the session: nothing it started is left running. Safe to call twice. */
  close(): Promise<void>;
}

export interface Runtime {
  readonly name: RuntimeName;
  /**
   * True when its agent prints plain lines, the last of which says what it does (the command
   * runtime); a runtime that reads its own stream reports activity through its session instead.
   */
  readonly activityInOutput?: boolean;
  open(agent: CycleAgent): Promise<AgentSession>;
}
