// The optional credential: an installation token (1 hour) limited to the one repository and the
// permissions a lane needs, so a lane holds less than the App itself may do. It acts as the
// App's bot, not the person; nothing is stored: each process mints its own.
import type { AppConfig, GitHubUrls } from './app-config.js';
import { signAppJwt } from './app-jwt.js';
import { callTokenEndpoint, tokenGarbage } from './token-http.js';

export type Permission = 'read' | 'write';

/**
 * What every lane needs: push branches, open pull requests; metadata is implied by GitHub. A
 * lane whose items are GitHub issues adds ISSUE_PERMISSIONS (items/sources.ts asks for them).
 */
export const LANE_PERMISSIONS: Readonly<Record<string, Permission>> = {
  contents: 'write',
  pull_requests: 'write',
  metadata: 'read',
};

/** What a lane whose items are GitHub issues needs on top: list, comment on and close them. */
export const ISSUE_PERMISSIONS: Readonly<Record<string, Permission>> = { issues: 'write' };

export interface InstallationTokenInput {
  config: AppConfig;
  privateKey: string;
  urls: GitHubUrls;
  owner: string;
  repo: string;
  permissions: Readonly<Record<string, Permission>>;
  httpTimeoutMs?: number;
}

export interface MintedToken {
  token: string;
  expiresAt: number;
  holder: string;
}

export async function mintInstallationToken(input: InstallationTokenInput): Promise<MintedToken> {
  const { owner, repo } = input;
  // One JWT for both calls: it lives 9 minutes, the two calls take well under a second.
  const jwt = { scheme: 'Bearer' as const, credential: signAppJwt(input.config.appId, input.privateKey, Date.now()) };
  const base = input.urls.api;
  const timeoutMs = input.httpTimeoutMs;
  const find = `finding the App's installation on ${owner}/${repo} (GET /repos/${owner}/${repo}/installation)`;
  const installation = await callTokenEndpoint({
    base,
    method: 'GET',
    path: `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/installation`,
    call: find,
    write: false,
    notFound: `the App is probably not installed on ${owner}/${repo}: the person must install it there (App settings → Install App)`,
    authorization: jwt,
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  if (typeof installation.id !== 'number') throw tokenGarbage(find, 'an installation id', false);
  const mint = `minting an installation token for ${owner}/${repo} (POST /app/installations/${installation.id}/access_tokens)`;
  const t = await callTokenEndpoint({
    base,
    method: 'POST',
    path: `/app/installations/${installation.id}/access_tokens`,
    call: mint,
    // A lost answer mints a token nobody holds; it expires by itself, and the next try mints anew.
    write: false,
    authorization: jwt,
    body: { repositories: [repo], permissions: { ...input.permissions } },
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  const expiresAt = typeof t.expires_at === 'string' ? Date.parse(t.expires_at) : NaN;
  if (typeof t.token !== 'string' || t.token === '' || !Number.isFinite(expiresAt))
    throw tokenGarbage(mint, 'a token and its expiry', false);
  const slug = typeof installation.app_slug === 'string' ? installation.app_slug : `app-${String(input.config.appId)}`;
  return { token: t.token, expiresAt, holder: `${slug}[bot]` };
}
