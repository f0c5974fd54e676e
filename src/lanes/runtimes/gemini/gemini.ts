// The `gemini` runtime: Gemini CLI headless. The first turn is `gemini -p '' -o stream-json
// --approval-mode yolo` with the turn's text on stdin; every later turn (a steer envelope, a
// rebase prompt, a check's output) runs it again with `-r <session>` in the same worktree, so
// the agent keeps its conversation. Its stdin is read whole before it starts, so it has no live
// input channel: a steer waits for the turn's end. Each run has its private GEMINI_CLI_HOME
// (gemini-home.ts). Sandboxed with a key, the key stays in abcd's model gateway and the agent's
// GOOGLE_GEMINI_BASE_URL names the gateway (ADR 0148): usage is then the API's answers';
// otherwise it is the sum of every run's result stats.
import type { Env } from '../../../core/deps.js';
import { urlEndpoint } from '../../../machine/sandbox/network-allow.js';
import type { GeminiConfig } from '../../../repo/config.js';
import { startAgent } from '../../run/run-agent.js';
import { linkGateway, PLACEHOLDER_KEY, type GatewayLink } from '../gateway-link.js';
import type { AgentSession, CycleAgent, Runtime, TurnOptions, TurnResult } from '../runtime.js';
import { GEMINI_QUIET_ENV, geminiArgv } from './gemini-args.js';
import { GeminiEvents } from './gemini-events.js';
import { makeGeminiHome } from './gemini-home.js';

// Where the Gemini API is when GOOGLE_GEMINI_BASE_URL does not say.
const GEMINI_API = 'https://generativelanguage.googleapis.com';
const GEMINI_API_ENDPOINT = 'generativelanguage.googleapis.com:443';

export function geminiRuntime(cfg: GeminiConfig = {}, laneEnv: Env = {}): Runtime {
  return {
    name: 'gemini',
    open: async (agent) => {
      const home = await makeGeminiHome(agent.cycleDir);
      const base = agent.env.GOOGLE_GEMINI_BASE_URL;
      const key = laneEnv.GEMINI_API_KEY;
      // Sandboxed with a key in abcd's own environment: the gateway holds it and sends to abcd's
      // own GOOGLE_GEMINI_BASE_URL (a config that names the key for the agent was refused before the claim).
      if (agent.network && key) {
        const upstream = new URL(laneEnv.GOOGLE_GEMINI_BASE_URL ?? base ?? GEMINI_API);
        const link = await linkGateway(agent, { dialect: 'gemini', upstream, credential: { headers: { 'x-goog-api-key': key } } });
        return new GeminiSession(cfg, agent, home, link);
      }
      agent.network?.allow((base && urlEndpoint(base)) || GEMINI_API_ENDPOINT);
      return new GeminiSession(cfg, agent, home);
    },
  };
}

class GeminiSession implements AgentSession {
  readonly live = false;
  private readonly events: GeminiEvents;

  constructor(
    private readonly cfg: GeminiConfig,
    private readonly a: CycleAgent,
    private readonly home: string,
    /** The model gateway that holds the key, when the agent is sandboxed. */
    private readonly gateway?: GatewayLink,
  ) {
    this.events = new GeminiEvents(a.onActivity);
  }

  async turn(text: string, o: TurnOptions): Promise<TurnResult> {
    const session = this.events.sessionId;
    if (o.kind !== 'task' && !session) {
      // Without its session a new run would start over with only this turn's text.
      return {
        exitCode: 1,
        timedOut: false,
        stopped: false,
        durationMs: 0,
        outputTail: 'gemini named no session in its first run: it cannot be resumed',
      };
    }
    this.events.onStarted = o.onTaken;
    const p = await startAgent({
      argv: geminiArgv(this.cfg, o.kind === 'task' ? {} : { resume: session! }),
      stdin: 'pipe',
      env: { ...this.a.env, ...GEMINI_QUIET_ENV, GEMINI_CLI_HOME: this.home, ...this.gatewayEnv() },
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
    // The CLI reads its stdin to the end before it starts: the turn's text, then nothing more.
    p.stdin?.end(text);
    const run = await p.done;
    this.events.end();
    this.events.onStarted = undefined;
    return { ...run, outputTail: this.events.takeTail() || run.outputTail };
  }

  steer(): Promise<boolean> {
    // No live channel: the cycle resumes the session with the envelope after the turn.
    return Promise.resolve(false);
  }

  /** The API's own counts through the gateway (the CLI's session kept); else the runs' stats. */
  usage() {
    const cli = this.events.usage(this.cfg.model);
    if (!this.gateway) return Promise.resolve({ ...cli, source: 'runtime' as const });
    const api = this.gateway.usage();
    const named = api.model ?? cli.model;
    return Promise.resolve({ ...api, ...(cli.sessionId ? { sessionId: cli.sessionId } : {}), ...(named ? { model: named } : {}) });
  }

  budgetStop(): string | undefined {
    return this.gateway?.budgetStop();
  }

  async close(): Promise<void> {
    // Each run is gone with its turn; the home goes with the cycle's folder.
    await this.gateway?.close();
  }

  /** The gateway's address, and a placeholder where the CLI reads its key. */
  private gatewayEnv(): Record<string, string> {
    return this.gateway ? { GOOGLE_GEMINI_BASE_URL: this.gateway.baseUrl, GEMINI_API_KEY: PLACEHOLDER_KEY } : {};
  }
}
