// Which forge host a remote points at, and whether the login check applies to it at all. A remote
// that is no forge (file://, a local path, a plain ssh or http git server) has no login to
// find and takes no App token; abcd says so instead of pretending it checked.

/** GitHub's own host; the default when the remote's URL cannot be read. */
export const GITHUB_HOST = 'github.com';

// ssh over port 443 (`ssh://git@ssh.github.com:443/o/r`) is github.com under another name.
const GITHUB_ALIASES: ReadonlySet<string> = new Set(['github.com', 'www.github.com', 'ssh.github.com']);

// GitHub Enterprise Cloud with data residency lives on <tenant>.ghe.com.
const GHE_CLOUD_SUFFIX = '.ghe.com';

export type ForgeHost =
  { applies: true; host: string; from: 'hostname' | 'remote' | 'default' } | { applies: false; reason: string; remoteHost?: string };

export interface ForgeHostInput {
  /** The remote's URL as `git remote get-url` prints it; undefined when it could not be read. */
  remoteUrl?: string;
  /** An explicit host (`--hostname`): the person named it, so the check applies. */
  hostname?: string;
  /** GitHub Enterprise Server hosts the person configured (for example GH_HOST). */
  enterpriseHosts?: readonly string[];
}

/** Works out the host to check. Fails closed: an unreadable remote means github.com. */
export function resolveForgeHost(input: ForgeHostInput): ForgeHost {
  if (input.hostname) return { applies: true, host: input.hostname.toLowerCase(), from: 'hostname' };
  if (input.remoteUrl === undefined || input.remoteUrl.trim() === '') {
    return { applies: true, host: GITHUB_HOST, from: 'default' };
  }
  const host = remoteHost(input.remoteUrl);
  if (host === undefined) {
    return { applies: false, reason: 'the remote is a local path or file:// URL, not a forge' };
  }
  if (GITHUB_ALIASES.has(host)) return { applies: true, host: GITHUB_HOST, from: 'remote' };
  const enterprise = (input.enterpriseHosts ?? []).map((h) => h.toLowerCase());
  if (enterprise.includes(host) || host.endsWith(GHE_CLOUD_SUFFIX)) {
    return { applies: true, host, from: 'remote' };
  }
  return {
    applies: false,
    reason: `${host} is no GitHub forge (neither github.com nor a configured GitHub Enterprise host)`,
    remoteHost: host,
  };
}

/**
 * The host of a git remote URL, lowercased, without user or port; undefined for a local
 * path or file:// URL. Never returns the user or password a URL may carry.
 */
export function remoteHost(url: string): string | undefined {
  const u = url.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(u)) {
    if (/^file:/i.test(u)) return undefined;
    try {
      const host = new URL(u).hostname.toLowerCase();
      return host === '' ? undefined : host.replace(/^\[(.*)\]$/, '$1');
    } catch {
      return undefined; // a single parse: a URL that does not parse names no host
    }
  }
  // scp-like syntax: [user@]host:path. git reads it so only when no slash precedes the
  // first colon; otherwise it is a local path (git's own rule, connect.c).
  const scp = /^(?:[^@/]*@)?(\[[^\]]+\]|[^:/]+):/.exec(u);
  if (scp?.[1] && !/^[a-z]$/i.test(scp[1])) return scp[1].replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return undefined;
}

/** The remote URL with any user and password removed, fit to print. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1');
}
