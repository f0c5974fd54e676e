// The default credential: a user-to-server token the App mints for the person (8 hours), kept
// fresh with the refresh token (6 months). The pair lives in one file shared by all of the
// person's abcd processes; refreshing happens under a lock, once, by whichever needs it first.
import type { Clock } from '../deps.js';
import { UnsafeEnvironment } from '../refusals.js';
import type { AppConfig, AppPaths, GitHubUrls } from './app-config.js';
import { refusalFor, garbage, SETUP_HINT } from './token-errors.js';
import { readUserToken, stampOf, writeUserToken, type FileStamp, type UserToken } from './token-file.js';
import { createGitHubRequest, oauthError, type GitHubRequest } from './token-http.js';
import { withTokenLock, type LockOptions } from './token-lock.js';

export interface UserTokenDeps {
  paths: AppPaths;
  config: AppConfig;
  urls: GitHubUrls;
  clock: Clock;
  httpTimeoutMs?: number;
  lock?: Omit<LockOptions, 'clock'>;
}

export interface LoadedUserToken {
  token: UserToken & { login: string };
  /** The token file's version this came from, to notice another process replacing it. */
  stamp: FileStamp | undefined;
}

const REFRESH_CALL = "refreshing the person's App token (POST /login/oauth/access_token)";

/** A user token valid for more than marginMs, refreshed first (once across processes) if not. */
export async function freshUserToken(d: UserTokenDeps, marginMs: number): Promise<LoadedUserToken> {
  const path = d.paths.userToken;
  const first = await readUserToken(path);
  if (usable(first.token, d.clock.now(), marginMs) && first.token.login) return first as LoadedUserToken;
  return withTokenLock(path, { clock: d.clock, ...d.lock }, async () => {
    // Another process may have refreshed while this one waited for the lock: use its pair.
    const again = await readUserToken(path);
    let token = again.token;
    if (!usable(token, d.clock.now(), marginMs)) token = await refreshPair(d, token);
    if (!token.login) {
      token = { ...token, login: await resolveLogin(d, token.token) };
      await writeUserToken(path, token);
    }
    return { token: token as LoadedUserToken['token'], stamp: await stampOf(path) };
  });
}

function usable(t: UserToken, now: number, marginMs: number): boolean {
  return t.expiresAt - marginMs > now;
}

/** Spends the refresh token for a new pair and stores it before anything else can fail. */
async function refreshPair(d: UserTokenDeps, old: UserToken): Promise<UserToken> {
  const now = d.clock.now();
  if (old.refreshTokenExpiresAt !== undefined && old.refreshTokenExpiresAt <= now) {
    throw new UnsafeEnvironment(
      `the person's App refresh token expired on ${new Date(old.refreshTokenExpiresAt).toISOString()}; ${SETUP_HINT}.`,
      { path: d.paths.userToken, reason: 'refresh-token-expired', fix: 'abcd setup-app' },
    );
  }
  const { createOAuthUserAuth } = await import('@octokit/auth-app');
  // The OAuth endpoints live on the web host (github.com), not the API host.
  const request = await createGitHubRequest(d.urls.web, d.httpTimeoutMs);
  const auth = createOAuthUserAuth({
    clientType: 'github-app',
    clientId: d.config.clientId,
    clientSecret: d.config.clientSecret ?? '',
    token: old.token,
    refreshToken: old.refreshToken,
    expiresAt: new Date(old.expiresAt).toISOString(),
    refreshTokenExpiresAt: new Date(old.refreshTokenExpiresAt ?? now).toISOString(),
    request,
  });
  let a;
  try {
    a = await auth({ type: 'refresh' });
  } catch (e) {
    const f = e as { response?: { data?: unknown } };
    if (oauthError(f.response?.data) === 'bad_refresh_token') {
      // A process that broke a stale lock may have refreshed meanwhile: its pair is the live one.
      const cur = await readUserToken(d.paths.userToken);
      if (cur.token.refreshToken !== old.refreshToken && usable(cur.token, d.clock.now(), 0)) return cur.token;
    }
    throw refusalFor(e, { call: REFRESH_CALL, spends: true });
  }
  if (!('refreshToken' in a) || !a.refreshToken || !a.expiresAt) {
    throw garbage(REFRESH_CALL, 'a refresh token and expiry ("Expire user authorization tokens" must be on)');
  }
  const next: UserToken = {
    v: 1,
    token: a.token,
    expiresAt: Date.parse(a.expiresAt),
    refreshToken: a.refreshToken,
  };
  const refreshExpiry = Date.parse(a.refreshTokenExpiresAt);
  if (Number.isFinite(refreshExpiry)) next.refreshTokenExpiresAt = refreshExpiry;
  // Written at once: the old pair is already dead, so this one must not be lost to a later failure.
  await writeUserToken(d.paths.userToken, next);
  return next;
}

/** GET /user with the token: who the token acts for (the claim holder's forge identity). */
export async function resolveLogin(d: Pick<UserTokenDeps, 'urls' | 'httpTimeoutMs'>, token: string): Promise<string> {
  const request: GitHubRequest = await createGitHubRequest(d.urls.api, d.httpTimeoutMs);
  const call = "resolving the token's holder (GET /user)";
  let data: unknown;
  try {
    ({ data } = await request('GET /user', { headers: { authorization: `token ${token}` } }));
  } catch (e) {
    throw refusalFor(e, { call });
  }
  const login = (data as { login?: unknown } | undefined)?.login;
  if (typeof login !== 'string' || login === '') throw garbage(call, 'a login');
  return login;
}
