// The `codex` runtime: Codex CLI headless. The first turn is `codex exec --json <prompt>`;
// every later turn (a steer envelope, a rebase prompt, a check's output) is `codex exec resume
// <thread> <text>` in the same worktree, so the agent keeps its conversation. Codex has no
// live input channel: a steer waits for the turn's end. Each run has stdin closed (Codex
// otherwise waits for more input), its private CODEX_HOME (codex-home.ts), and Codex's own
// sandbox off inside the lane's (ADR 0087). Usage is the thread's latest running total (ADR 0088).
import type { CodexConfig } from '../../../repo/config.js';
import { checkEnvNames } from '../../../machine/sandbox/environment.js';
import { urlEndpoint } from '../../../machine/sandbox/network-allow.js';
import { startAgent } from '../../run-agent.js';
import { CodexEvents } from './codex-events.js';
import { makeCodexHome, type CodexHome } from './codex-home.js';
import type { AgentSession, CycleAgent, Runtime, TurnOptions, TurnResult } from '../runtime.js';

// Where Codex's own provider is when no config or variable names another.
const OPENAI_API = 'https://api.openai.com/v1';
const OPENAI_API_ENDPOINT = 'api.openai.com:443';

/** What Codex needs from the lane's environment whatever the config says: its key, its endpoint, the team's config. */
const CODEX_ENV = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'CODEX_HOME'] as const;

/** The names the agent's environment takes for Codex: the defaults and `lanes.codex.env`. */
export function codexEnvNames(cfg: CodexConfig | undefined): string[] {
  return [...CODEX_ENV, ...checkEnvNames(cfg?.env ?? [], 'lanes.codex.env')];
}

/** The program a codex lane runs (and its sandbox must show). */
export function codexProgram(cfg: CodexConfig | undefined): string {
  return cfg?.program ?? 'codex';
}

export function codexRuntime(cfg: CodexConfig = {}): Runtime {
  return {
    name: 'codex',
    open: async (agent) => {
      const home = await makeCodexHome(agent.cycleDir, agent.env.CODEX_HOME);
      agent.network?.allow(urlEndpoint(home.baseUrl ?? agent.env.OPENAI_BASE_URL ?? OPENAI_API) ?? OPENAI_API_ENDPOINT);
      // The cycle's log says what config Codex got, so a setting that went missing is explained there.
      agent.onOutput?.(`[abcd: Codex's config: ${home.seeded}]\n`);
      return new CodexSession(cfg, agent, home);
    },
  };
}

class CodexSession implements AgentSession {
  readonly live = false;
  private readonly events: CodexEvents;

  constructor(
    private readonly cfg: CodexConfig,
    private readonly a: CycleAgent,
    private readonly home: CodexHome,
  ) {
    this.events = new CodexEvents(a.onActivity);
  }

  async turn(text: string, o: TurnOptions): Promise<TurnResult> {
    const thread = this.events.threadId;
    if (o.kind !== 'task' && !thread) {
      // Without its thread a new run would start over with only this turn's text.
      return {
        exitCode: 1,
        timedOut: false,
        stopped: false,
        durationMs: 0,
        outputTail: 'codex named no thread in its first run: it cannot be resumed',
      };
    }
    this.events.onTurnStarted = o.onTaken;
    const p = await startAgent({
      argv: this.argv(text, o.kind === 'task' ? undefined : thread),
      stdin: 'ignore',
      env: { ...this.a.env, CODEX_HOME: this.home.dir },
      sandbox: this.a.sandbox,
      plan: this.a.plan,
      marker: this.a.marker,
      timeoutMs: o.timeoutMs,
      ...(o.signal ? { signal: o.signal } : {}),
      now: this.a.now,
      ...(this.a.onOutput ? { onOutput: this.a.onOutput } : {}),
      onStdout: (chunk) => this.events.feed(chunk),
      onStderr: (chunk) => this.events.note(chunk),
      ...(o.onExit ? { onExit: o.onExit } : {}),
    });
    const run = await p.done;
    this.events.end();
    this.events.onTurnStarted = undefined;
    return { ...run, outputTail: this.events.takeTail() || run.outputTail };
  }

  /** `codex exec [resume] <flags> -- [thread] <text>`: the same flags on both, so `args` apply to every turn. */
  private argv(text: string, thread: string | undefined): string[] {
    const mode = this.cfg.sandbox ?? 'danger-full-access';
    return [
      codexProgram(this.cfg),
      'exec',
      ...(thread ? ['resume'] : []),
      '--json',
      '--skip-git-repo-check',
      '-c',
      `sandbox_mode="${mode}"`,
      '-c',
      'approval_policy="never"',
      ...(this.cfg.model ? ['-m', this.cfg.model] : []),
      ...(this.cfg.args ?? []),
      '--',
      ...(thread ? [thread] : []),
      text,
    ];
  }

  steer(): Promise<boolean> {
    // No live channel: the cycle resumes the thread with the envelope after the turn.
    return Promise.resolve(false);
  }

  usage() {
    return Promise.resolve(this.events.usage(this.cfg.model ?? this.home.model));
  }

  close(): Promise<void> {
    // Each run is gone with its turn; the home goes with the cycle's folder.
    return Promise.resolve();
  }
}
