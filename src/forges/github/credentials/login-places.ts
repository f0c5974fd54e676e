// Where the person's forge login can sit without asking anyone for it: the token
// variables, gh's hosts file and git's store files. Each reader keeps only a yes or no;
// no value, user name or password leaves these functions (a lane never acts under the person's login, and never shows it).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Env } from '../../../core/deps.js';

/** The variables gh and git-based tools read a forge token from (gh help environment). */
export const TOKEN_VARIABLES = ['GH_TOKEN', 'GITHUB_TOKEN', 'GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN'] as const;

/**
 * The token variables that are set and non-empty, by name only. All four count whatever the
 * host: a token for any forge within the lane's reach is the person's, so it fails closed.
 */
export function setTokenVariables(env: Env): string[] {
  return TOKEN_VARIABLES.filter((name) => (env[name] ?? '') !== '');
}

function xdgConfigHome(env: Env, home: string): string {
  const xdg = env.XDG_CONFIG_HOME;
  return xdg !== undefined && xdg !== '' ? xdg : join(home, '.config');
}

/** gh's hosts.yml: GH_CONFIG_DIR, else $XDG_CONFIG_HOME/gh, else ~/.config/gh. */
export function ghHostsPath(env: Env, home: string): string {
  const dir = env.GH_CONFIG_DIR;
  return join(dir !== undefined && dir !== '' ? dir : join(xdgConfigHome(env, home), 'gh'), 'hosts.yml');
}

/** git credential-store's default files, in the order git reads them (gitcredentials). */
export function gitCredentialPaths(env: Env, home: string): string[] {
  return [join(home, '.git-credentials'), join(xdgConfigHome(env, home), 'git', 'credentials')];
}

// A top-level YAML key: no indent, optionally quoted, followed by a colon and a space or
// the line's end. Only the key is captured; whatever follows the colon is never looked at.
const TOP_LEVEL_KEY = /^(?:"([^"]*)"|'([^']*)'|([^\s#'"-][^#]*?))\s*:(?:\s|$)/;

/** Whether gh's hosts.yml has a top-level entry for the host, read from key lines alone. */
export function hostsFileNamesHost(text: string, host: string): boolean {
  const want = host.toLowerCase();
  for (const line of text.split(/\r?\n/)) {
    const m = TOP_LEVEL_KEY.exec(line);
    const key = m ? (m[1] ?? m[2] ?? m[3]) : undefined;
    if (key !== undefined && key.trim().toLowerCase() === want) return true;
  }
  return false;
}

/**
 * Whether a git credential-store file has a line for the host. Each line is a URL with the
 * user and password in it; only its host is compared and nothing of the line is kept. A
 * line that is no URL names no host.
 */
export function credentialsFileNamesHost(text: string, host: string): boolean {
  const want = host.toLowerCase();
  const withPort = want.includes(':');
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    let found: string;
    try {
      const url = new URL(trimmed);
      found = (withPort ? url.host : url.hostname).toLowerCase();
    } catch {
      continue; // a single parse: a line that is no URL names no host
    }
    if (found === want) return true;
  }
  return false;
}

/** A file that can hold the person's login, with the reader that looks for the host in it. */
export interface StoreFile {
  kind: 'gh-hosts-file' | 'git-credentials-file';
  path: string;
  label: string;
  namesHost: (text: string, host: string) => boolean;
}

export function storeFiles(env: Env, home: string): StoreFile[] {
  return [
    { kind: 'gh-hosts-file', path: ghHostsPath(env, home), label: "gh's hosts file", namesHost: hostsFileNamesHost },
    ...gitCredentialPaths(env, home).map((path): StoreFile => ({
      kind: 'git-credentials-file',
      path,
      label: "git's credential store",
      namesHost: credentialsFileNamesHost,
    })),
  ];
}

/** Reads a text file; undefined when it does not exist. Other failures throw. */
export type ReadText = (path: string) => Promise<string | undefined>;

export const readTextIfPresent: ReadText = async (path) => {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
};
