// A lane run's settings: the command line first, then `lanes` in .abcd/config.json on main,
// then the defaults; and the deadline rule of the timed lifecycle (ADR 0024).
import { DEFAULT_RUNTIME, type LanesConfig } from '../../repo/config.js';
import type { Env } from '../../core/deps.js';
import { DeadlineReached, UsageError } from '../../core/refusals.js';
import { formatDuration, formatInstant, parseDuration, parseInstant } from '../../core/duration.js';
import { checkEnvNames } from './agent-env.js';
import { CYCLE_OVERHEAD_MS } from '../cycle/context.js';
import { runtimeSpec } from '../runtimes/index.js';
import type { RuntimeName } from '../runtimes/runtime.js';
import type { RuntimeSetup } from '../runtimes/spec.js';
import type { SandboxMode } from './sandbox.js';

export type Lifecycle = 'once' | 'poll' | 'timed';

export interface LaneFlags {
  runtime?: RuntimeName;
  agent?: string;
  sandbox?: SandboxMode;
  lifecycle?: Lifecycle;
  /** --deadline as given: a duration from now or an RFC 3339 instant. */
  deadline?: string;
  idleMs?: number;
  ttlMs?: number;
  agentTimeoutMs?: number;
  maxCycles?: number;
  lanes?: number;
}

export interface LaneSettings {
  runtime: RuntimeName;
  /** Every variable name the config passes the agent (lanes.env and the runtime's own list). */
  passed: readonly string[];
  /** The `command` runtime's shell command ('' for the others). */
  agent: string;
  /** What the agent's sandbox must show: the command (its first word) or the runtime's program. */
  program: string;
  /** The runtime's own settings, checked: it opens the run's sessions. */
  setup: RuntimeSetup;
  sandbox: SandboxMode;
  lifecycle: Lifecycle;
  deadline: number;
  idleMs: number;
  ttlMs: number;
  agentTimeoutMs: number;
  maxCycles: number;
  lanes: number;
  envNames: string[];
  /** How long a run's local log folder is kept after its last write. */
  logRetentionMs: number;
}

const DEFAULT_AGENT_TIMEOUT_MS = 30 * 60_000;
const DEFAULT_IDLE_MS = 5 * 60_000;
// A lane's claim lives this long between renewals (the keeper renews at a third of it).
const DEFAULT_LANE_TTL_MS = 10 * 60_000;
// A week of runs' logs: long enough to look into last week's failure, short enough not to pile up.
const DEFAULT_LOG_RETENTION_MS = 7 * 86_400_000;
export const DEFAULT_MAX_CYCLES = 3;

export function laneSettings(flags: LaneFlags, cfg: LanesConfig, env: Env, now: number): LaneSettings {
  const runtime = flags.runtime ?? cfg.runtime ?? DEFAULT_RUNTIME;
  const setup = runtimeSpec(runtime).setup(cfg, { agent: flags.agent ?? cfg.agent, agentFlag: flags.agent });
  const passed = [...(cfg.env ?? []), ...setup.passed];
  const lifecycle = flags.lifecycle ?? cfg.lifecycle ?? 'once';
  const agentTimeoutMs =
    flags.agentTimeoutMs ?? (cfg.agentTimeout ? parseDuration(cfg.agentTimeout, 'lanes.agentTimeout') : DEFAULT_AGENT_TIMEOUT_MS);
  const given = flags.deadline !== undefined ? parseDeadline(flags.deadline, '--deadline', now) : Infinity;
  const job = env.ABCD_JOB_DEADLINE ? parseDeadline(env.ABCD_JOB_DEADLINE, 'ABCD_JOB_DEADLINE', now) : Infinity;
  const deadline = Math.min(given, job);
  if (lifecycle === 'timed' && deadline === Infinity) {
    throw new UsageError(
      '--lifecycle timed needs a deadline: pass --deadline (e.g. 50m or 2026-11-30T18:00:00Z) or set ABCD_JOB_DEADLINE.',
      'argument',
    );
  }
  if (lifecycle === 'timed' && deadline - now < agentTimeoutMs + CYCLE_OVERHEAD_MS) {
    const need = agentTimeoutMs + CYCLE_OVERHEAD_MS;
    throw new DeadlineReached(
      `the deadline ${formatInstant(deadline)} leaves ${formatDuration(Math.max(0, deadline - now))}, less than one whole first cycle ` +
        `(${formatDuration(need)}: the agent timeout of ${formatDuration(agentTimeoutMs)} plus ${formatDuration(CYCLE_OVERHEAD_MS)} to claim, ` +
        'prepare, push, land and publish); nothing was claimed. Give a later deadline or a shorter --agent-timeout.',
      { deadline: formatInstant(deadline), remainingMs: Math.max(0, deadline - now), neededMs: need },
    );
  }
  return {
    runtime,
    passed,
    agent: setup.agent,
    program: setup.program,
    setup,
    sandbox: flags.sandbox ?? cfg.sandbox ?? 'auto',
    lifecycle,
    deadline,
    idleMs: flags.idleMs ?? (cfg.idle ? parseDuration(cfg.idle, 'lanes.idle') : DEFAULT_IDLE_MS),
    ttlMs: flags.ttlMs ?? (cfg.ttl ? parseDuration(cfg.ttl, 'lanes.ttl') : DEFAULT_LANE_TTL_MS),
    agentTimeoutMs,
    maxCycles: flags.maxCycles ?? cfg.maxCycles ?? DEFAULT_MAX_CYCLES,
    lanes: flags.lanes ?? cfg.lanes ?? 1,
    envNames: [...checkEnvNames(cfg.env ?? []), ...setup.envNames],
    logRetentionMs: cfg.logRetention ? parseDuration(cfg.logRetention, 'lanes.logRetention') : DEFAULT_LOG_RETENTION_MS,
  };
}

/** The settings with the variables of a model key the agent is passed by default (none where the gateway holds it). */
export function withKeyPassed(s: LaneSettings, names: readonly string[]): LaneSettings {
  if (names.length === 0) return s;
  return { ...s, passed: [...s.passed, ...names], envNames: [...s.envNames, ...names] };
}

function parseDeadline(text: string, what: string, now: number): number {
  return /^\d+(ms|s|m|h|d)$/.test(text.trim()) ? now + parseDuration(text, what) : parseInstant(text.trim(), what);
}
