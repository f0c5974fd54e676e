// A remote on GitHub: github.com, *.ghe.com, or an Enterprise host listed in ABCD_GITHUB_HOSTS,
// with the repository it names. Anything else is no GitHub remote.
import { resolveForgeHost } from '../forge-host.js';

export interface GitHubRemote {
  /** As resolveForgeHost names it (no port): selects the API URLs. */
  host: string;
  /** `host[:port]` as git names it to a credential helper. */
  gitHost: string;
  owner: string;
  repo: string;
}

/** The GitHub repository `remoteUrl` names, or undefined when it is no GitHub remote. */
export function detectGitHubRemote(remoteUrl: string | undefined, enterpriseHosts: readonly string[]): GitHubRemote | undefined {
  if (!remoteUrl) return undefined;
  const host = resolveForgeHost({ remoteUrl, enterpriseHosts });
  if (!host.applies) return undefined;
  const path = repoPath(remoteUrl);
  if (!path) return undefined;
  return { host: host.host, gitHost: path.gitHost, owner: path.owner, repo: path.repo };
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
      return undefined; // a single parse: a remote that is no URL names no GitHub repository
    }
  }
  const parts = path
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '')
    .split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { gitHost: gitHost.toLowerCase(), owner: parts[0], repo: parts[1] };
}
