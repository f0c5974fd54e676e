// Codex's private home for one cycle. Codex will not start with a read-only CODEX_HOME (it
// keeps its sessions, logs and state databases there, and a resume reads the thread back from
// it), and the sandbox shows the system read-only: so each cycle gets `<cycle>/codex-home`,
// writable, kept for the cycle's resumes and gone with the cycle. It is seeded with the
// `config.toml` of the CODEX_HOME the lane's environment names, so a team's provider and model
// settings apply; nothing else is copied (auth.json is a person's login, never a lane's).
import { constants } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// A config.toml past this is not a config: it is not copied.
const MAX_CONFIG_BYTES = 1 << 20;

export interface CodexHome {
  /** The private CODEX_HOME. */
  dir: string;
  /** The seeded config's top-level `model`, when it names one. */
  model?: string;
  /** Where the config came from, or why none was copied. */
  seeded: string;
}

/** Makes `<cycleDir>/codex-home`, with `from`'s config.toml when there is one. */
export async function makeCodexHome(cycleDir: string, from: string | undefined): Promise<CodexHome> {
  const dir = join(cycleDir, 'codex-home');
  await mkdir(dir, { mode: 0o700 });
  if (!from) return { dir, seeded: 'CODEX_HOME is not in the lane environment: Codex starts with no config' };
  const source = join(from, 'config.toml');
  const text = await readConfig(source);
  if (text === undefined) return { dir, seeded: `${source} is not a readable file under 1 MiB: Codex starts with no config` };
  await writeFile(join(dir, 'config.toml'), text, { mode: 0o600 });
  return { dir, model: topLevelModel(text), seeded: source };
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

/** `model = "..."` before the first table: what Codex uses when no `-m` is given. */
export function topLevelModel(toml: string): string | undefined {
  for (const line of toml.split('\n')) {
    const l = line.trim();
    if (l.startsWith('[')) return undefined;
    const m = /^model\s*=\s*"([^"\\]{1,200})"\s*(#.*)?$/.exec(l) ?? /^model\s*=\s*'([^']{1,200})'\s*(#.*)?$/.exec(l);
    if (m) return m[1];
  }
  return undefined;
}
