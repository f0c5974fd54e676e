// The GitHub API client for a remote's host, with the overrides abcd's environment sets
// (ABCD_GITHUB_API_URL, ABCD_GITHUB_GRAPHQL_URL: Enterprise, tests).
import type { Clock } from '../../core/deps.js';
import type { EnvConfig } from '../../core/env.js';
import { GitHubClient } from './client.js';

/** The API client for `host`, asking `tokens` on every call; ABCD_GITHUB_API_URL and its kin win. */
export function githubClient(o: {
  host: string;
  env: Pick<EnvConfig, 'github'>;
  token: () => Promise<string>;
  clock: Clock;
  deadlineAt?: number;
}): GitHubClient {
  const api = o.env.github.apiUrl;
  return new GitHubClient({
    host: o.host,
    ...(api ? { restUrl: api, graphqlUrl: o.env.github.graphqlUrl || `${api}/graphql` } : {}),
    token: o.token,
    clock: o.clock,
    ...(o.deadlineAt !== undefined ? { deadlineAt: o.deadlineAt } : {}),
  });
}
