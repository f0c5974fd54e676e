// The forge a remote is: a plain git remote or GitHub, and what each needs.
import { resolveForgeHost } from './forge-host.js';

/** Where `land` goes and whether git needs abcd's App token: a plain git remote or GitHub. */
export type Forge =
  | { kind: 'git' }
  | {
      kind: 'github';
      /** As resolveForgeHost names it (no port): selects the API URLs. */
      host: string;
      /** `host[:port]` as git names it to a credential helper. */
      gitHost: string;
      owner: string;
      repo: string;
    };

/**
 * Detects GitHub from the remote URL: github.com, *.ghe.com, or an Enterprise host listed in
 * ABCD_GITHUB_HOSTS (comma-separated). Anything else is a plain git remote.
 */
export function detectForge(remoteUrl: string | undefined, enterpriseHosts: readonly string[]): Forge {
  if (!remoteUrl) return { kind: 'git' };
  const host = resolveForgeHost({ remoteUrl, enterpriseHosts });
  if (!host.applies) return { kind: 'git' };
  const path = repoPath(remoteUrl);
  if (!path) return { kind: 'git' };
  return { kind: 'github', host: host.host, gitHost: path.gitHost, owner: path.owner, repo: path.repo };
}

function repoPath(url: string): { gitHost: string; owner: string; repo: string } | undefined {
  // scp-like ssh: git@github.com:owner/repo.git
  const scp = /^(?:[^@/]+@)?([^:/]+):([^/].*)$/.exec(url);
  let gitHost: string;
  let path: string;
  if (scp && !url.includes('://')) {
    gitHost = scp[1]!;
    path = scp[2]!;
  } else {
    try {
      const u = new URL(url);
      gitHost = u.host;
      path = u.pathname;
    } catch {
      return undefined;
    }
  }
  const parts = path
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '')
    .split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { gitHost: gitHost.toLowerCase(), owner: parts[0], repo: parts[1] };
}
