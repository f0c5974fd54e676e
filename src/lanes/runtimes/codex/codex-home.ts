// Codex's private home for one cycle. Codex will not start with a read-only CODEX_HOME (it
// keeps its sessions, logs and state databases there, and a resume reads the thread back from
// it), and the sandbox shows the system read-only: so each cycle gets `<cycle>/codex-home`,
// writable, kept for the cycle's resumes and gone with the cycle. The agent's code can read
// it, so it is seeded with only the model and provider settings of the `config.toml` of the
// CODEX_HOME the lane's environment names (codex-config.ts says which); nothing else is copied
// (auth.json is a person's login, never a lane's). When abcd's model gateway holds the key, the
// chosen provider's base_url in the copy is the gateway's (codex-config.ts `throughGateway`).
import { constants } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unlessSystemError } from '../../../core/best-effort.js';
import { agentCodexConfig, codexRoute, throughGateway, type CodexRoute } from './codex-config.js';

// A config.toml past this is not a config: it is not copied.
const MAX_CONFIG_BYTES = 1 << 20;

export interface CodexHome {
  /** The private CODEX_HOME. */
  dir: string;
  /** The seeded config's top-level `model`, when it names one. */
  model?: string;
  /** The base URL of the provider the seeded config chooses, when it names one. */
  baseUrl?: string;
  /** Where the config came from and what of it was left out, or why none was copied: for the cycle's log. */
  seeded: string;
  /** The names of what the copy left out (never their values). */
  dropped: string[];
  /** The route the gateway carries, when the config was pointed at it. */
  gateway?: CodexRoute;
}

/**
 * Starts the model gateway for a route (the provider the config chooses) and gives the base URL
 * the agent's config names instead; undefined when it holds no key for it (no gateway then).
 */
export type GatewayFor = (route: CodexRoute) => Promise<string | undefined>;

/**
 * Makes `<cycleDir>/codex-home`, with the allow-listed part of `from`'s config.toml when there is
 * one, its provider pointed at the model gateway when `gateway` starts one.
 */
export async function makeCodexHome(cycleDir: string, from: string | undefined, gateway?: GatewayFor): Promise<CodexHome> {
  const dir = join(cycleDir, 'codex-home');
  await mkdir(dir, { mode: 0o700 });
  const read = await readTeamConfig(from);
  let toml = read.config?.toml;
  let through: CodexRoute | undefined;
  const route = codexRoute(read.config?.kept ?? {});
  const url = route && gateway ? await gateway(route) : undefined;
  if (route && url) {
    toml = throughGateway(read.config?.kept ?? {}, route, url);
    through = route;
  }
  if (toml !== undefined) await writeFile(join(dir, 'config.toml'), toml, { mode: 0o600 });
  const via = through ? `; its provider ${through.provider} asks abcd's model gateway, which holds ${through.envKey}` : '';
  const config = read.config;
  if (!config)
    return {
      dir,
      seeded: `${read.why}: Codex starts with ${through ? 'only the gateway' : 'no config'}${via}`,
      dropped: [],
      ...(through ? { gateway: through } : {}),
    };
  const left = config.dropped.length ? `; left out, as the agent can read this copy: ${config.dropped.join(', ')}` : '';
  return {
    dir,
    ...(config.model ? { model: config.model } : {}),
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
    seeded: `the model settings of ${read.source}${left}${via}`,
    dropped: config.dropped,
    ...(through ? { gateway: through } : {}),
  };
}

type TeamConfig =
  | { source: string; config: Extract<ReturnType<typeof agentCodexConfig>, { ok: true }>; why?: undefined }
  | { config?: undefined; why: string };

/** The allow-listed part of `from`'s config.toml, or why there is none. */
async function readTeamConfig(from: string | undefined): Promise<TeamConfig> {
  if (!from) return { why: 'CODEX_HOME is not in the lane environment' };
  const source = join(from, 'config.toml');
  const text = await readConfig(source);
  if (text === undefined) return { why: `${source} is not a readable file under 1 MiB` };
  const config = agentCodexConfig(text);
  if (!config.ok) return { why: `${source} is not copied: ${config.reason}` };
  return { source, config };
}

async function readConfig(path: string): Promise<string | undefined> {
  // Missing, a folder, unreadable or a loop: not a file to read (a bug is thrown on).
  const h = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(unlessSystemError(undefined));
  if (!h) return undefined;
  try {
    const st = await h.stat();
    if (!st.isFile() || st.size > MAX_CONFIG_BYTES) return undefined;
    return (await h.readFile()).toString('utf8');
  } finally {
    await h.close();
  }
}
