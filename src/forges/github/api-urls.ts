// Where GitHub's REST and GraphQL APIs live for a forge host. github.com serves them from its
// own api. host; GitHub Enterprise Server serves them under /api on the instance itself; the
// data-residency cloud (<tenant>.ghe.com) has an api.<tenant>.ghe.com host like github.com.

export interface GitHubApiUrls {
  /** REST base without a trailing slash: `https://api.github.com` or `https://<host>/api/v3`. */
  rest: string;
  /** The GraphQL endpoint: `https://api.github.com/graphql` or `https://<host>/api/graphql`. */
  graphql: string;
}

/** The API URLs for a host as resolveForgeHost returns it (lowercase, no port, no user). */
export function githubApiUrls(host: string): GitHubApiUrls {
  const h = host.toLowerCase();
  if (h === 'github.com') return { rest: 'https://api.github.com', graphql: 'https://api.github.com/graphql' };
  if (h.endsWith('.ghe.com')) return { rest: `https://api.${h}`, graphql: `https://api.${h}/graphql` };
  return { rest: `https://${h}/api/v3`, graphql: `https://${h}/api/graphql` };
}
