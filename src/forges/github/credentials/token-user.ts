// The default credential: a user-to-server token the App mints for the person (8 hours), kept
// fresh with the refresh token (6 months). The pair lives in one file shared by all of the
// person's abcd processes; refreshing happens under a lock, once, by whichever needs it first.
import type { Clock } from '../../../core/deps.js';
import { UnsafeEnvironment } from '../../../core/refusals.js';
import type { AppConfig, AppPaths, GitHubUrls } from './app-config.js';
import { readUserToken, stampOf, writeUserToken, type FileStamp, type UserToken } from './token-file.js';
import { callTokenEndpoint, oauthError, oauthRefusal, SETUP_HINT, tokenGarbage } from './token-http.js';
import { withTokenLock, type LockOptions } from './token-lock.js';

export interface UserTokenDeps {
  paths: AppPaths;
  config: AppConfig;
  urls: GitHubUrls;
  clock: Clock;
  /** This computer's name, for the refresh lock. */
  host: string;
  httpTimeoutMs?: number;
  lock?: Omit<LockOptions, 'clock' | 'host'>;
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
  return withTokenLock(path, { clock: d.clock, host: d.host, ...d.lock }, async () => {
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
  if (!d.config.clientId) {
    throw new UnsafeEnvironment(
      `${d.paths.app} has no clientId, which refreshing the person's App token needs; ${SETUP_HINT} with --client-id.`,
      { path: d.paths.app, reason: 'no-client-id', fix: 'abcd setup-app' },
    );
  }
  // The OAuth endpoints live on the web host (github.com), not the API host.
  const a = await callTokenEndpoint({
    base: d.urls.web,
    method: 'POST',
    path: '/login/oauth/access_token',
    call: REFRESH_CALL,
    write: true,
    recheck: `GitHub may have spent the refresh token: if the next try says it is revoked, ${SETUP_HINT}`,
    body: {
      client_id: d.config.clientId,
      ...(d.config.clientSecret ? { client_secret: d.config.clientSecret } : {}),
      grant_type: 'refresh_token',
      refresh_token: old.refreshToken,
    },
    clock: d.clock,
    ...(d.httpTimeoutMs ? { timeoutMs: d.httpTimeoutMs } : {}),
  });
  const err = oauthError(a);
  if (err === 'bad_refresh_token') {
    // A process that broke a stale lock may have refreshed meanwhile: its pair is the live one.
    const cur = await readUserToken(d.paths.userToken);
    if (cur.token.refreshToken !== old.refreshToken && usable(cur.token, d.clock.now(), 0)) return cur.token;
  }
  if (err !== undefined) throw oauthRefusal(REFRESH_CALL, err);
  const { access_token, expires_in, refresh_token, refresh_token_expires_in } = a;
  if (typeof access_token !== 'string' || access_token === '' || typeof refresh_token !== 'string' || typeof expires_in !== 'number') {
    throw tokenGarbage(REFRESH_CALL, 'a token, a refresh token and an expiry ("Expire user authorization tokens" must be on)', true);
  }
  const next: UserToken = { v: 1, token: access_token, expiresAt: now + expires_in * 1000, refreshToken: refresh_token };
  if (typeof refresh_token_expires_in === 'number') next.refreshTokenExpiresAt = now + refresh_token_expires_in * 1000;
  // Written at once: the old pair is already dead, so this one must not be lost to a later failure.
  await writeUserToken(d.paths.userToken, next);
  return next;
}

/** GET /user with the token: who the token acts for (the claim holder's forge identity). */
export async function resolveLogin(d: Pick<UserTokenDeps, 'urls' | 'httpTimeoutMs'>, token: string): Promise<string> {
  const call = "resolving the token's holder (GET /user)";
  const data = await callTokenEndpoint({
    base: d.urls.api,
    method: 'GET',
    path: '/user',
    call,
    write: false,
    authorization: { scheme: 'token', credential: token },
    ...(d.httpTimeoutMs ? { timeoutMs: d.httpTimeoutMs } : {}),
  });
  const login = data.login;
  if (typeof login !== 'string' || login === '') throw tokenGarbage(call, 'a login', false);
  return login;
}
