// The `codex` runtime: Codex CLI headless. The first turn is `codex exec --json <prompt>`;
// every later turn (a steer envelope, a rebase prompt, a check's output) is `codex exec resume
// <thread> <text>` in the same worktree, so the agent keeps its conversation. Codex has no
// live input channel: a steer waits for the turn's end. Each run has stdin closed (Codex
// otherwise waits for more input), its private CODEX_HOME (codex-home.ts), and Codex's own
// sandbox off inside the lane's (ADR 0087). Sandboxed with a key, the key stays in abcd's model
// gateway and the agent's config names the gateway (ADR 0123): usage is then the API's answers';
// otherwise it is the thread's latest running total (ADR 0088).
import type { Env } from '../../../core/deps.js';
import { UsageError } from '../../../core/refusals.js';
import type { CodexConfig } from '../../../repo/config.js';
import { checkEnvNames } from '../../../machine/sandbox/environment.js';
import { urlEndpoint } from '../../../machine/sandbox/network-allow.js';
import { startAgent } from '../../run/run-agent.js';
import { CodexEvents } from './codex-events.js';
import type { CodexRoute } from './codex-config.js';
import { makeCodexHome, type CodexHome } from './codex-home.js';
import { linkGateway, PLACEHOLDER_KEY, type GatewayLink } from '../gateway-link.js';
import type { AgentSession, CycleAgent, Runtime, TurnOptions, TurnResult } from '../runtime.js';

// Where Codex's own provider is when no config or variable names another.
const OPENAI_API = 'https://api.openai.com/v1';
const OPENAI_API_ENDPOINT = 'api.openai.com:443';

/**
 * What Codex needs from the lane's environment whatever the config says: its endpoint and the
 * team's config. Its key (OPENAI_API_KEY) is passed too only where no model gateway holds it
 * (installs.ts `passedByDefault`).
 */
const CODEX_ENV = ['OPENAI_BASE_URL', 'CODEX_HOME'] as const;

/** The names the agent's environment takes for Codex: the defaults and `lanes.codex.env`. */
export function codexEnvNames(cfg: CodexConfig | undefined): string[] {
  return [...CODEX_ENV, ...checkEnvNames(cfg?.env ?? [], 'lanes.codex.env')];
}

/** The program a codex lane runs (and its sandbox must show). */
export function codexProgram(cfg: CodexConfig | undefined): string {
  return cfg?.program ?? 'codex';
}

export function codexRuntime(cfg: CodexConfig = {}, laneEnv: Env = {}, heldKey?: string): Runtime {
  return {
    name: 'codex',
    open: async (agent) => {
      let link: GatewayLink | undefined;
      const network = agent.network;
      // Sandboxed with the provider's key in abcd's own environment: the gateway holds it, and
      // the agent's config names the gateway (the team's base_url, or OPENAI_BASE_URL, is the
      // gateway's upstream and is not in the agent's copy). A key read from lanes.codex.keyFile
      // is the chosen provider's, whatever its env_key names.
      const gateway = async (route: CodexRoute) => {
        const key = heldKey ?? laneEnv[route.envKey];
        if (!network || !key) return undefined;
        refuseOtherWire(route);
        const upstream = new URL(route.baseUrl ?? laneEnv.OPENAI_BASE_URL ?? OPENAI_API);
        link = await linkGateway(agent, { dialect: 'responses', upstream, credential: { headers: { authorization: `Bearer ${key}` } } });
        return link.baseUrl;
      };
      let home: CodexHome;
      try {
        home = await makeCodexHome(agent.cycleDir, agent.env.CODEX_HOME, gateway);
      } catch (e) {
        await link?.close();
        throw e;
      }
      if (!link) network?.allow(urlEndpoint(home.baseUrl ?? agent.env.OPENAI_BASE_URL ?? OPENAI_API) ?? OPENAI_API_ENDPOINT);
      // The cycle's log says what config Codex got, so a setting that went missing is explained there.
      agent.onOutput?.(`[abcd: Codex's config: ${home.seeded}]\n`);
      return new CodexSession(cfg, agent, home, link);
    },
  };
}

/**
 * The gateway carries the Responses API only: a provider that speaks another (`wire_api = "chat"`)
 * would be asked in a dialect it does not know, so its lane refuses before the agent starts.
 */
function refuseOtherWire(route: CodexRoute): void {
  if (route.wireApi === undefined || route.wireApi === 'responses') return;
  throw new UsageError(
    `Codex's provider ${route.provider} has wire_api = "${route.wireApi}", but abcd's model gateway, which holds its key in a sandbox, ` +
      'carries only the Responses API: set wire_api = "responses" for it in CODEX_HOME\'s config.toml if the provider serves ' +
      '/responses, or choose a provider that does; the agent did not start.',
    'model-provider',
    { provider: route.provider, wireApi: route.wireApi },
  );
}

class CodexSession implements AgentSession {
  readonly live = false;
  private readonly events: CodexEvents;

  constructor(
    private readonly cfg: CodexConfig,
    private readonly a: CycleAgent,
    private readonly home: CodexHome,
    /** The model gateway that holds the key, when the agent is sandboxed. */
    private readonly gateway?: GatewayLink,
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
      env: { ...this.a.env, CODEX_HOME: this.home.dir, ...this.gatewayEnv() },
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

  /** The API's own counts through the gateway (the thread kept as the session); else Codex's report. */
  usage() {
    const model = this.cfg.model ?? this.home.model;
    const cli = this.events.usage(model);
    if (!this.gateway) return Promise.resolve({ ...cli, source: 'runtime' as const });
    const api = this.gateway.usage();
    const named = api.model ?? model;
    return Promise.resolve({ ...api, ...(cli.sessionId ? { sessionId: cli.sessionId } : {}), ...(named ? { model: named } : {}) });
  }

  budgetStop(): string | undefined {
    return this.gateway?.budgetStop();
  }

  async close(): Promise<void> {
    // Each run is gone with its turn; the home goes with the cycle's folder.
    await this.gateway?.close();
  }

  /** The gateway's address, and a placeholder in the variable the provider's key is read from. */
  private gatewayEnv(): Record<string, string> {
    const route = this.home.gateway;
    if (!this.gateway || !route) return {};
    return { OPENAI_BASE_URL: this.gateway.baseUrl, [route.envKey]: PLACEHOLDER_KEY };
  }
}
