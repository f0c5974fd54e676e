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
import { linkGateway, PLACEHOLDER_KEY, type GatewayLink } from '../gateway-link.js';
import { ResumableSession, type ResumableCli } from '../resumable-session.js';
import type { CycleAgent, Runtime } from '../runtime.js';
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
        return new ResumableSession(agent, new GeminiEvents(agent.onActivity), geminiCli(cfg, agent, home, link), link);
      }
      agent.network?.allow((base && urlEndpoint(base)) || GEMINI_API_ENDPOINT);
      return new ResumableSession(agent, new GeminiEvents(agent.onActivity), geminiCli(cfg, agent, home, undefined));
    },
  };
}

/** What is Gemini CLI's own in its resumable session: `gemini [-r <session>]` with the text on stdin, its home, the gateway's address. */
function geminiCli(cfg: GeminiConfig, a: CycleAgent, home: string, gateway: GatewayLink | undefined): ResumableCli {
  // The gateway's address, and a placeholder where the CLI reads its key.
  const viaGateway: Record<string, string> = gateway ? { GOOGLE_GEMINI_BASE_URL: gateway.baseUrl, GEMINI_API_KEY: PLACEHOLDER_KEY } : {};
  return {
    unresumable: 'gemini named no session in its first run: it cannot be resumed',
    model: cfg.model,
    run: (text, session) => ({
      argv: geminiArgv(cfg, session === undefined ? {} : { resume: session }),
      env: { ...a.env, ...GEMINI_QUIET_ENV, GEMINI_CLI_HOME: home, ...viaGateway },
      // The CLI reads its stdin to the end before it starts: the turn's text, then nothing more.
      input: text,
    }),
  };
}
