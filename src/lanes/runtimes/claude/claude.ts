// The `claude` runtime: Claude Code headless in the lane's sandbox, one process per cycle
// with its stdin kept open. A turn is one user message line; it ends at the CLI's `result`
// for it. A steer written while a turn runs is taken by the CLI at its next tool boundary (or
// as its next turn) and replayed on stdout with the uuid abcd gave it: that replay is the
// proof of delivery, and the turn waits for the result of every steer it took. When the
// process is gone between turns (killed, crashed), the next turn resumes the same session
// (`--resume <session_id>`) from the transcript kept in the cycle's private HOME.
import { randomUUID } from '../../../core/builtins.js';
import type { Env } from '../../../core/deps.js';
import { allowedEnv } from '../../../machine/sandbox/environment.js';
import { urlEndpoint } from '../../../machine/sandbox/network-allow.js';
import type { ClaudeConfig } from '../../../repo/config.js';
import { startAgent, type AgentProcess, type AgentRun } from '../../run/run-agent.js';
import { CLAUDE_QUIET_ENV, claudeArgv, userMessageLine } from './claude-args.js';
import { ClaudeStream } from './claude-stream.js';
import type { AgentSession, CycleAgent, Runtime, TurnOptions, TurnResult } from '../runtime.js';
import { claudeCredential, type ClaudeCredential } from './claude-credential.js';
import { linkGateway, type GatewayLink } from '../gateway-link.js';

// After stdin is closed, how long the CLI may take to write its transcript and exit.
const CLOSE_GRACE_MS = 5000;
// Between turns the process waits on stdin; past this it is stopped (the next turn resumes).
const IDLE_BETWEEN_TURNS_MS = 60 * 60_000;

// Where Claude Code's API is when ANTHROPIC_BASE_URL does not say.
const ANTHROPIC_API_ENDPOINT = 'api.anthropic.com:443';

// Where Claude Code's API is when ANTHROPIC_BASE_URL does not say, as a base URL.
const ANTHROPIC_API = 'https://api.anthropic.com';

export function claudeRuntime(cfg: ClaudeConfig, laneEnv: Env): Runtime {
  return {
    name: 'claude',
    open: async (agent) => {
      const base = allowedEnv(laneEnv, cfg.env ?? []).ANTHROPIC_BASE_URL ?? agent.env.ANTHROPIC_BASE_URL;
      const held = claudeCredential(laneEnv);
      // Sandboxed with a credential: it stays in abcd's gateway; the agent gets its address and a
      // placeholder (a config that names the credential for the agent was refused before the claim).
      if (agent.network && held) {
        // The API the gateway sends to: abcd's own ANTHROPIC_BASE_URL, whether or not the agent would see it.
        const upstream = new URL(laneEnv.ANTHROPIC_BASE_URL ?? base ?? ANTHROPIC_API);
        const gateway = await linkGateway(agent, { dialect: 'messages', upstream, credential: held.credential });
        return new ClaudeSession(cfg, laneEnv, agent, { link: gateway, agentEnv: held.agentEnv });
      }
      agent.network?.allow((base && urlEndpoint(base)) || ANTHROPIC_API_ENDPOINT);
      return new ClaudeSession(cfg, laneEnv, agent);
    },
  };
}

interface Live {
  p: AgentProcess;
  stop: AbortController;
  run?: AgentRun;
}

interface Turn {
  uuid: string;
  startedAt: number;
  mark: number;
  o: TurnOptions;
  taken: boolean;
  onStop: () => void;
  resolve: (r: TurnResult) => void;
}

class ClaudeSession implements AgentSession {
  readonly live = true;
  private readonly stream: ClaudeStream;
  private proc: Live | undefined;
  private current: Turn | undefined;
  private readonly steers = new Map<string, (taken: boolean) => void>();
  /** false once a turn ended without its own message replayed: this CLI does not replay, so no steer can be proven. */
  private replays = true;
  private closed = false;

  constructor(
    private readonly cfg: ClaudeConfig,
    private readonly laneEnv: Env,
    private readonly a: CycleAgent,
    /** The model gateway that holds the credential, when the agent is sandboxed, and the placeholders given instead. */
    private readonly held?: { link: GatewayLink; agentEnv: ClaudeCredential['agentEnv'] },
  ) {
    this.stream = new ClaudeStream({
      ...(a.onActivity ? { onActivity: a.onActivity } : {}),
      onTaken: (uuid) => this.taken(uuid),
      onResult: (r) => this.resultSeen(r.ok),
    });
  }

  async turn(text: string, o: TurnOptions): Promise<TurnResult> {
    if (this.closed || this.current) throw new Error('claude session: a turn while another runs, or after close');
    const proc = this.proc ?? (await this.start(o.timeoutMs));
    proc.p.extend(o.timeoutMs);
    const uuid = randomUUID();
    return new Promise<TurnResult>((resolve) => {
      const onStop = () => proc.stop.abort();
      this.current = { uuid, startedAt: this.a.now(), mark: this.stream.written, o, taken: false, onStop, resolve };
      o.signal?.addEventListener('abort', onStop, { once: true });
      if (o.signal?.aborted) onStop();
      proc.p.stdin?.write(userMessageLine(text, uuid));
    });
  }

  steer(envelope: string): Promise<boolean> {
    const proc = this.proc;
    if (!this.current || !proc || proc.run || !this.replays || !proc.p.stdin?.writable) return Promise.resolve(false);
    const uuid = randomUUID();
    return new Promise<boolean>((resolve) => {
      this.steers.set(uuid, resolve);
      proc.p.stdin!.write(userMessageLine(envelope, uuid));
    });
  }

  /** The API's own counts through the gateway (the CLI's cost and session kept); else the CLI's report. */
  usage() {
    const cli = this.stream.usage();
    if (!this.gateway) return Promise.resolve({ ...cli, source: 'runtime' as const });
    const api = this.gateway.usage();
    return Promise.resolve({
      ...api,
      costUsd: cli.costUsd,
      ...(cli.sessionId ? { sessionId: cli.sessionId } : {}),
      ...((api.model ?? cli.model) ? { model: api.model ?? cli.model } : {}),
    });
  }

  budgetStop(): string | undefined {
    return this.gateway?.budgetStop();
  }

  async close(): Promise<void> {
    this.closed = true;
    const proc = this.proc;
    if (proc) {
      // Its stdin closed, the CLI ends its session; one that does not is killed with its group.
      proc.p.stdin?.end();
      const grace = setTimeout(() => proc.p.extend(0), CLOSE_GRACE_MS);
      await proc.p.done;
      clearTimeout(grace);
    }
    await this.gateway?.close();
  }

  private get gateway(): GatewayLink | undefined {
    return this.held?.link;
  }

  /** The gateway's address and placeholders in place of the API's and the credential, when there is a gateway. */
  private gatewayEnv(): Record<string, string> {
    return this.held ? { ANTHROPIC_BASE_URL: this.held.link.baseUrl, ...this.held.agentEnv } : {};
  }

  /** A process for this session: a new one the first time, a resume when an earlier one is gone. */
  private async start(timeoutMs: number): Promise<Live> {
    const resume = this.stream.sessionId;
    if (resume) this.stream.restarted();
    const stop = new AbortController();
    const p = await startAgent({
      argv: claudeArgv(this.cfg, resume ? { resume } : {}),
      stdin: 'pipe',
      // HOME and TMPDIR stay the cycle's: the CLI's config and transcripts live there.
      env: { ...allowedEnv(this.laneEnv, this.cfg.env ?? []), ...this.a.env, ...CLAUDE_QUIET_ENV, ...this.gatewayEnv() },
      sandbox: this.a.sandbox,
      plan: this.a.plan,
      marker: this.a.marker,
      timeoutMs,
      signal: stop.signal,
      now: this.a.now,
      ...(this.a.onOutput ? { onOutput: this.a.onOutput } : {}),
      onStdout: (chunk) => this.stream.push(chunk),
    });
    const live: Live = { p, stop };
    this.proc = live;
    void p.done.then((run) => this.gone(live, run));
    return live;
  }

  private taken(uuid: string): void {
    const t = this.current;
    if (t && uuid === t.uuid && !t.taken) {
      t.taken = true;
      t.o.onTaken?.();
      return;
    }
    const steer = this.steers.get(uuid);
    if (steer) {
      this.steers.delete(uuid);
      steer(true);
    }
  }

  private resultSeen(ok: boolean): void {
    const t = this.current;
    if (!t) return;
    if (!t.taken) {
      // The CLI answered the turn without replaying it: it does not replay, and a steer
      // written to it can never be proven taken (it stays open, never counted twice).
      this.replays = false;
      t.taken = true;
      t.o.onTaken?.();
      this.settleSteers(false);
    }
    // A steer still unreplayed is queued in the CLI: it runs as the next turn, whose result ends this one.
    if (this.steers.size > 0) return;
    this.finish({ exitCode: ok ? 0 : 1, timedOut: false, stopped: false });
  }

  private gone(live: Live, run: AgentRun): void {
    live.run = run;
    if (this.proc !== live) return;
    // A later turn starts a new process that resumes the session.
    this.proc = undefined;
    this.settleSteers(false);
    if (!this.current) return;
    // Its own errors (not JSON) say why it went.
    const said = run.outputTail
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('{'))
      .join('\n');
    this.stream.note(said || `the agent exited (${run.exitCode}) before it answered`);
    this.finish({ exitCode: run.exitCode === 0 ? 1 : run.exitCode, timedOut: run.timedOut, stopped: run.stopped });
  }

  private finish(end: Pick<TurnResult, 'exitCode' | 'timedOut' | 'stopped'>): void {
    const t = this.current;
    if (!t) return;
    this.current = undefined;
    t.o.signal?.removeEventListener('abort', t.onStop);
    // The process stays for the next turn; idle, it waits on stdin.
    if (this.proc && !this.proc.run) this.proc.p.extend(IDLE_BETWEEN_TURNS_MS);
    t.o.onExit?.();
    const stalled = this.stream.retrying;
    t.resolve({
      ...end,
      durationMs: this.a.now() - t.startedAt,
      outputTail: this.stream.tailSince(t.mark),
      ...(stalled
        ? {
            modelUnanswered: `the model API at ${this.gateway?.upstream.host ?? modelHost(this.a.env, this.laneEnv, this.cfg)} did not answer: ${stalled.attempts} retries, the last error ${stalled.error}`,
          }
        : {}),
    });
  }

  private settleSteers(taken: boolean): void {
    for (const resolve of this.steers.values()) resolve(taken);
    this.steers.clear();
  }
}

/** Where Claude Code sends its model requests: ANTHROPIC_BASE_URL when the agent gets it, else Anthropic's API. */
function modelHost(agentEnv: Record<string, string>, laneEnv: Env, cfg: ClaudeConfig): string {
  const base = agentEnv.ANTHROPIC_BASE_URL ?? allowedEnv(laneEnv, cfg.env ?? []).ANTHROPIC_BASE_URL;
  try {
    return base ? new URL(base).host : 'api.anthropic.com';
  } catch {
    // a single parse: the base URL the agent was given, named as such when it is no URL
    return 'the ANTHROPIC_BASE_URL it was given';
  }
}
