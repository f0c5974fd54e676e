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
import { CodexEvents } from './codex-events.js';
import type { CodexRoute } from './codex-config.js';
import { makeCodexHome, type CodexHome } from './codex-home.js';
import { linkGateway, PLACEHOLDER_KEY, type GatewayLink } from '../gateway-link.js';
import { ResumableSession, type ResumableCli } from '../resumable-session.js';
import type { CycleAgent, Runtime } from '../runtime.js';

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
      return new ResumableSession(agent, new CodexEvents(agent.onActivity), codexCli(cfg, agent, home, link), link);
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

/** What is Codex's own in its resumable session: `codex exec [resume]`, its home, the gateway's address. */
function codexCli(cfg: CodexConfig, a: CycleAgent, home: CodexHome, gateway: GatewayLink | undefined): ResumableCli {
  return {
    unresumable: 'codex named no thread in its first run: it cannot be resumed',
    model: cfg.model ?? home.model,
    run: (text, thread) => ({
      argv: codexArgv(cfg, text, thread),
      env: { ...a.env, CODEX_HOME: home.dir, ...gatewayEnv(home, gateway) },
    }),
  };
}

/** `codex exec [resume] <flags> -- [thread] <text>`: the same flags on both, so `args` apply to every turn. */
function codexArgv(cfg: CodexConfig, text: string, thread: string | undefined): string[] {
  const mode = cfg.sandbox ?? 'danger-full-access';
  return [
    codexProgram(cfg),
    'exec',
    ...(thread ? ['resume'] : []),
    '--json',
    '--skip-git-repo-check',
    '-c',
    `sandbox_mode="${mode}"`,
    '-c',
    'approval_policy="never"',
    ...(cfg.model ? ['-m', cfg.model] : []),
    ...(cfg.args ?? []),
    '--',
    ...(thread ? [thread] : []),
    text,
  ];
}

/** The gateway's address, and a placeholder in the variable the provider's key is read from. */
function gatewayEnv(home: CodexHome, gateway: GatewayLink | undefined): Record<string, string> {
  const route = home.gateway;
  if (!gateway || !route) return {};
  return { OPENAI_BASE_URL: gateway.baseUrl, [route.envKey]: PLACEHOLDER_KEY };
}
