// How the credential code talks to GitHub: through the forge's one HTTP client (callGitHub), so
// a token call and a forge call that get the same answer end in the same refusal (ADR 0029).
// What only token calls have is here: OAuth errors that arrive inside a 200.
import type { Clock } from '../../../core/deps.js';
import { UnsafeEnvironment } from '../../../core/refusals.js';
import { callGitHub } from '../http.js';
import { garbage } from '../http-refusals.js';

/** Per call: GitHub answers token calls in well under a second; past this it is not coming. */
export const HTTP_DEADLINE_MS = 15_000;

export const SETUP_HINT = 'run "abcd setup-app" to authorize abcd again';

export interface TokenCall {
  /** The API root or the web root (the OAuth endpoints live on the web host). */
  base: string;
  method: 'GET' | 'POST';
  path: string;
  /** The call in words, for messages. */
  call: string;
  /** A lost answer may have changed something (a refresh spends the refresh token). */
  write: boolean;
  recheck?: string;
  notFound?: string;
  authorization?: { scheme: 'Bearer' | 'token'; credential: string };
  body?: Record<string, unknown>;
  timeoutMs?: number;
  clock?: Clock;
}

/** One token call; resolves to the JSON object GitHub answered, refuses on anything else. */
export async function callTokenEndpoint(c: TokenCall): Promise<Record<string, unknown>> {
  const info = {
    call: c.call,
    write: c.write,
    ...(c.recheck ? { recheck: c.recheck } : {}),
    ...(c.notFound ? { notFound: c.notFound } : {}),
  };
  const a = await callGitHub({
    url: `${c.base}${c.path}`,
    method: c.method,
    info,
    timeoutMs: c.timeoutMs ?? HTTP_DEADLINE_MS,
    ...(c.authorization ? { authorization: c.authorization } : {}),
    ...(c.body ? { body: c.body } : {}),
    ...(c.clock ? { clock: c.clock } : {}),
  });
  if (typeof a.data !== 'object' || a.data === null || Array.isArray(a.data)) throw garbage(info, 'a JSON object');
  return a.data as Record<string, unknown>;
}

/** The OAuth error code GitHub puts in a 200 body, e.g. bad_refresh_token. */
export function oauthError(data: unknown): string | undefined {
  if (typeof data === 'object' && data !== null && 'error' in data) {
    const err = (data as { error: unknown }).error;
    return typeof err === 'string' ? err : undefined;
  }
  return undefined;
}

/** An OAuth error: the stored credential (refresh token, client id or secret) is no good: exit 7. */
export function oauthRefusal(call: string, code: string): UnsafeEnvironment {
  return new UnsafeEnvironment(
    `GitHub refused ${call}: ${code} (the refresh token or client credentials are expired or revoked); ${SETUP_HINT}.`,
    { call, reason: 'oauth-error', oauthError: code, fix: 'abcd setup-app' },
  );
}

/** A 2xx answer without what GitHub always sends: garbage, exit 8. */
export function tokenGarbage(call: string, what: string, write: boolean) {
  return garbage({ call, write }, what);
}
