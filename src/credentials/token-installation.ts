// The optional credential: an installation token (1 hour) limited to the one repository and the
// permissions a lane needs, so a lane holds less than the App itself may do. It acts as the
// App's bot, not the person; nothing is stored: each process mints its own.
import type { AppConfig, GitHubUrls } from './app-config.js';
import { garbage, refusalFor } from './token-errors.js';
import { createGitHubRequest } from './token-http.js';

export type Permission = 'read' | 'write';

/** What a lane needs: push branches, open pull requests; metadata is implied by GitHub. */
export const LANE_PERMISSIONS: Readonly<Record<string, Permission>> = {
  contents: 'write',
  pull_requests: 'write',
  metadata: 'read',
};

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
  const { createAppAuth } = await import('@octokit/auth-app');
  const request = await createGitHubRequest(input.urls.api, input.httpTimeoutMs);
  const { owner, repo } = input;
  const auth = createAppAuth({
    appId: input.config.appId,
    privateKey: input.privateKey,
    request,
    // auth-app only logs from its request hook, which abcd does not use.
    log: { warn: () => undefined },
  });
  const find = `finding the App's installation on ${owner}/${repo} (GET /repos/${owner}/${repo}/installation)`;
  let installation: { id?: unknown; app_slug?: unknown };
  try {
    const app = await auth({ type: 'app' });
    const r = await request('GET /repos/{owner}/{repo}/installation', {
      owner,
      repo,
      headers: { authorization: `bearer ${app.token}` },
    });
    installation = r.data as typeof installation;
  } catch (e) {
    throw refusalFor(e, {
      call: find,
      notFound: `the App is not installed on ${owner}/${repo}: the person must install it there (App settings → Install App)`,
    });
  }
  if (typeof installation.id !== 'number') throw garbage(find, 'an installation id');
  const mint = `minting an installation token for ${owner}/${repo} (POST /app/installations/${installation.id}/access_tokens)`;
  try {
    const t = await auth({
      type: 'installation',
      installationId: installation.id,
      repositoryNames: [repo],
      permissions: { ...input.permissions },
      // auth-app keeps its own cache; abcd keeps the token's expiry itself and asks for a new one.
      refresh: true,
    });
    const expiresAt = Date.parse(t.expiresAt);
    if (!t.token || !Number.isFinite(expiresAt)) throw garbage(mint, 'a token and its expiry');
    const slug = typeof installation.app_slug === 'string' ? installation.app_slug : `app-${String(input.config.appId)}`;
    return { token: t.token, expiresAt, holder: `${slug}[bot]` };
  } catch (e) {
    throw refusalFor(e, { call: mint });
  }
}
