// Codex's private home for one cycle. Codex will not start with a read-only CODEX_HOME (it
// keeps its sessions, logs and state databases there, and a resume reads the thread back from
// it), and the sandbox shows the system read-only: so each cycle gets `<cycle>/codex-home`,
// writable, kept for the cycle's resumes and gone with the cycle. The agent's code can read
// it, so it is seeded with only the model and provider settings of the `config.toml` of the
// CODEX_HOME the lane's environment names (codex-config.ts says which); nothing else is copied
// (auth.json is a person's login, never a lane's).
import { constants } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentCodexConfig } from './codex-config.js';

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
}

/** Makes `<cycleDir>/codex-home`, with the allow-listed part of `from`'s config.toml when there is one. */
export async function makeCodexHome(cycleDir: string, from: string | undefined): Promise<CodexHome> {
  const dir = join(cycleDir, 'codex-home');
  await mkdir(dir, { mode: 0o700 });
  const none = (why: string): CodexHome => ({ dir, seeded: `${why}: Codex starts with no config`, dropped: [] });
  if (!from) return none('CODEX_HOME is not in the lane environment');
  const source = join(from, 'config.toml');
  const text = await readConfig(source);
  if (text === undefined) return none(`${source} is not a readable file under 1 MiB`);
  const config = agentCodexConfig(text);
  if (!config.ok) return none(`${source} is not copied: ${config.reason}`);
  await writeFile(join(dir, 'config.toml'), config.toml, { mode: 0o600 });
  const left = config.dropped.length ? `; left out, as the agent can read this copy: ${config.dropped.join(', ')}` : '';
  return {
    dir,
    ...(config.model ? { model: config.model } : {}),
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
    seeded: `the model settings of ${source}${left}`,
    dropped: config.dropped,
  };
}

async function readConfig(path: string): Promise<string | undefined> {
  const h = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  if (!h) return undefined;
  try {
    const st = await h.stat();
    if (!st.isFile() || st.size > MAX_CONFIG_BYTES) return undefined;
    return (await h.readFile()).toString('utf8');
  } finally {
    await h.close();
  }
}
