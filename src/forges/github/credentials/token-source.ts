// What a lane asks for its forge credential. A TokenSource keeps the token in memory with its
// expiry and mints or refreshes a new one before it lapses, so a lane that runs for hours never
// hands git a token about to die. Secrets are read in this (host) process only.
import type { Clock } from '../../../core/deps.js';
import type { EnvConfig } from '../../../core/env.js';
import { UsageError } from '../../../core/refusals.js';
import { rememberSecret } from '../../../core/known-secrets.js';
import { appPaths, githubUrls, keyPath, loadAppConfig, loadPrivateKey, type AppConfig } from './app-config.js';
import { assertPrivate } from './app-private-file.js';
import { sameStamp, stampOf, type FileStamp } from './token-file.js';
import { LANE_PERMISSIONS, mintInstallationToken, type Permission } from './token-installation.js';
import { freshUserToken } from './token-user.js';
import type { LockOptions } from './token-lock.js';

/**
 * Renew this long before expiry: longer than any single git push or forge call a lane makes
 * with the token in hand, so it never lapses mid-call.
 */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export type TokenKind = 'user' | 'installation';

export interface AppToken {
  token: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  kind: TokenKind;
  /** user: the person's login (GET /user); installation: the App's bot, `<slug>[bot]`. */
  holder: string;
}

export interface TokenSource {
  readonly kind: TokenKind;
  /** A token valid for at least the margin; concurrent calls share one mint or refresh. */
  get(): Promise<AppToken>;
  /**
   * Widens what installation tokens are minted with (a lane whose items are GitHub issues
   * needs `issues: write`); a token minted without it is not handed out again. A user token
   * carries the App's whole grant, so nothing changes for it.
   */
  need(permissions: Readonly<Record<string, Permission>>): void;
}

export interface TokenSourceOptions {
  /** Where the App's files are, GitHub's URLs, and this computer's name (for the refresh lock). */
  config: Pick<EnvConfig, 'configDir' | 'github' | 'host'>;
  clock: Clock;
  /** Default 'user': the person's token through the App. */
  kind?: TokenKind;
  /** Required for 'installation': the one repository the token is limited to. */
  repository?: { owner: string; repo: string };
  permissions?: Readonly<Record<string, Permission>>;
  refreshMarginMs?: number;
  httpTimeoutMs?: number;
  lock?: Omit<LockOptions, 'clock' | 'host'>;
}

export function createTokenSource(o: TokenSourceOptions): TokenSource {
  const kind = o.kind ?? 'user';
  if (kind === 'installation' && !o.repository) {
    throw new UsageError('an installation token needs the repository it is limited to (owner/repo).', 'argument');
  }
  const margin = o.refreshMarginMs ?? REFRESH_MARGIN_MS;
  const paths = appPaths(o.config.configDir);
  let config: AppConfig | undefined;
  const permissions: Record<string, Permission> = { ...(o.permissions ?? LANE_PERMISSIONS) };
  let cached: AppToken | undefined;
  let stamp: FileStamp | undefined;
  let pending: Promise<AppToken> | undefined;

  async function stillGood(t: AppToken): Promise<boolean> {
    if (t.expiresAt - margin <= o.clock.now()) return false;
    // Another process that refreshed the pair killed this token: notice by the file's stamp.
    return kind === 'installation' || sameStamp(stamp, await stampOf(paths.userToken));
  }

  async function obtain(): Promise<AppToken> {
    config ??= await loadAppConfig(paths);
    const urls = githubUrls(o.config.github, config);
    if (kind === 'user') {
      // The key is not needed for user tokens, but one others can read is unsafe all the same.
      await assertPrivate(keyPath(paths, config), "the App's private key");
      const t = await freshUserToken(
        { paths, config, urls, clock: o.clock, httpTimeoutMs: o.httpTimeoutMs, host: o.config.host, lock: o.lock },
        margin,
      );
      stamp = t.stamp;
      return { token: t.token.token, expiresAt: t.token.expiresAt, kind, holder: t.token.login };
    }
    const { owner, repo } = o.repository!;
    const privateKey = await loadPrivateKey(paths, config);
    const t = await mintInstallationToken({
      config,
      privateKey,
      urls,
      owner,
      repo,
      permissions: { ...permissions },
      httpTimeoutMs: o.httpTimeoutMs,
    });
    return { ...t, kind };
  }

  return {
    kind,
    need(extra) {
      if (widen(permissions, extra) && kind === 'installation') cached = undefined;
    },
    async get() {
      if (cached && (await stillGood(cached))) return cached;
      pending ??= obtain().finally(() => {
        pending = undefined;
      });
      cached = await pending;
      rememberSecret('the App token', cached.token);
      return cached;
    },
  };
}

/** Raises each permission to the level `extra` asks (write already covers it); says whether any rose. */
function widen(permissions: Record<string, Permission>, extra: Readonly<Record<string, Permission>>): boolean {
  let widened = false;
  for (const [name, level] of Object.entries(extra)) {
    if (permissions[name] === level || permissions[name] === 'write') continue;
    permissions[name] = level;
    widened = true;
  }
  return widened;
}
