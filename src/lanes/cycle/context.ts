// What one lane run shares between its lanes and cycles.
import type { RepoConfig } from '../../repo/config.js';
import type { ItemSource } from '../../items/source.js';
import type { GateRunner } from '../../land/land.js';
import type { Repo } from '../../repo/repo.js';
import type { MainBranch } from '../../claims/main-branch.js';
import type { Runtime } from '../runtimes/runtime.js';
import type { Sandbox, SandboxPlan } from '../run/sandbox.js';
import type { AgentActivity, LanePhase, UsageSoFar } from '../run/progress.js';

/** Everything one lane run (a build or a drain) shares between its lanes and cycles. */
export interface RunContext {
  repo: Repo;
  runId: string;
  source: ItemSource;
  /** main's .abcd/config.json at a commit, read at most once per commit in the run. */
  configAt: (commit: string) => Promise<RepoConfig>;
  main: MainBranch;
  gate: GateRunner;
  /** What runs the agent (the `command` runtime, Claude Code, Codex). */
  runtime: Runtime;
  sandbox: Sandbox;
  /** What the agent's sandbox shows of its program (lanes.bind, the install folders found). */
  program: Pick<SandboxPlan, 'binds' | 'symlinks'>;
  /** The person started the run and watches it (--attended). */
  attended: boolean;
  envNames: readonly string[];
  ttlMs: number;
  agentTimeoutMs: number;
  /** Cycles per item per run: a cycle's turns to resolve land conflicts come out of it too. */
  maxCycles?: number;
  /** The hard deadline (timed, or --deadline / ABCD_JOB_DEADLINE), ms since the epoch. */
  deadline: number;
  /** The computer's model budget folder. */
  budgetDir: string;
  /** Where the person's secrets live (hidden from the agent). */
  hide: readonly string[];
  /** Aborted on SIGINT/SIGTERM: no new cycle starts, the running agent is stopped. */
  signal?: AbortSignal;
  /** Streams each agent's output (an attended build). */
  onOutput?: (chunk: string) => void;
  /** What an item's agent does now (its latest tool call or message), as its runtime reports it. */
  onActivity?: (item: string, activity: AgentActivity) => void;
  /** What an item's agent used so far in its cycle, as its runtime reports it. */
  onUsage?: (item: string, usage: UsageSoFar) => void;
  /** An item's cycle entered a phase, or ended (null). */
  onPhase?: (item: string, phase: LanePhase | null) => void;
}

// Claim, worktree, push, land and publish around the agent: what one cycle needs besides
// the agent's own timeout before it can be started under a deadline (ADR 0024).
export const CYCLE_OVERHEAD_MS = 60_000;

/** Whether a whole cycle still fits before the run's deadline. */
export function cycleFits(ctx: RunContext, now: number): boolean {
  return ctx.deadline - now >= ctx.agentTimeoutMs + CYCLE_OVERHEAD_MS;
}
