// Turns what GitHub (or the network) answered a token call into abcd's refusals (DESIGN "Exit
// codes"): a credential GitHub will not take is exit 7 and needs the person; an outage or a
// rate limit is exit 8 and may be retried; a 409/422 is the forge refusing the act (exit 3).
import { ForgeRejected, isRefusal, RemoteUnavailable, UnsafeEnvironment, type Outcome, type Refusal } from '../refusals.js';
import { asHttpFailure, oauthError } from './token-http.js';

export interface CallContext {
  /** The call in words, e.g. "refreshing the person's App token (POST /login/oauth/access_token)". */
  call: string;
  /**
   * A lost answer to this call may have changed something: a refresh GitHub carried out but
   * whose answer never arrived has already spent the refresh token.
   */
  spends?: boolean;
  /** What a 404 means here (the App not installed on the repository, for instance). */
  notFound?: string;
}

export const SETUP_HINT = 'run "abcd setup-app" to authorize abcd again';

/** Maps anything a token call threw to a refusal; refusals pass through unchanged. */
export function refusalFor(e: unknown, ctx: CallContext): Refusal {
  if (isRefusal(e)) return e;
  const f = asHttpFailure(e);
  const message = e instanceof Error ? e.message : String(e);
  const status = f?.response?.status ?? f?.status;
  const headers = f?.response?.headers ?? {};
  const oauth = oauthError(f?.response?.data);
  // OAuth errors (bad_refresh_token, incorrect_client_credentials, ...) come as HTTP 200 with an
  // `error` field, which octokit rethrows as 400: each means the stored credential is no good.
  if (oauth !== undefined) {
    return new UnsafeEnvironment(
      `GitHub refused ${ctx.call}: ${oauth} (the refresh token or client credentials are expired or revoked); ${SETUP_HINT}.`,
      { call: ctx.call, status, oauthError: oauth, fix: 'abcd setup-app' },
    );
  }
  if (status === 429 || (status === 403 && (headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined))) {
    return new RemoteUnavailable(
      `GitHub rate-limited ${ctx.call} (HTTP ${status}); nothing changed. Try again after ${retryAfter(headers)}.`,
      { call: ctx.call, status, outcome: 'unchanged', retryAfter: retryAfter(headers) },
    );
  }
  if (status === 401 || status === 403) {
    return new UnsafeEnvironment(
      `GitHub refused ${ctx.call} (HTTP ${status}): the App credential is expired or revoked, or lacks a permission; ${SETUP_HINT}.`,
      { call: ctx.call, status, fix: 'abcd setup-app' },
    );
  }
  if (status === 404 && ctx.notFound) {
    return new UnsafeEnvironment(`${ctx.notFound} (GitHub answered 404 to ${ctx.call}).`, { call: ctx.call, status });
  }
  if (status === 409 || status === 422) {
    return new ForgeRejected(`GitHub rejected ${ctx.call} (HTTP ${status}): ${message}`, { call: ctx.call, status });
  }
  // No response at all (refused connection, DNS, deadline) comes from octokit as status 500 without one.
  const answered = f?.response !== undefined;
  const outcome: Outcome = !answered && ctx.spends ? 'unknown' : 'unchanged';
  const what = answered ? `answered HTTP ${status}` : `could not be reached (${message})`;
  const next =
    outcome === 'unknown'
      ? `GitHub may have carried it out: if the next try says the refresh token is revoked, ${SETUP_HINT}.`
      : 'Nothing changed; try again later.';
  return new RemoteUnavailable(`GitHub ${what} for ${ctx.call}. ${next}`, { call: ctx.call, status, outcome });
}

function retryAfter(headers: Record<string, string | undefined>): string {
  if (headers['retry-after']) return `${headers['retry-after']} s`;
  const reset = Number(headers['x-ratelimit-reset']);
  return Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000).toISOString() : 'a minute';
}

/** An answer that parsed but lacks what GitHub always sends: garbage, exit 8. */
export function garbage(call: string, what: string): RemoteUnavailable {
  return new RemoteUnavailable(`GitHub answered ${call} without ${what}; nothing was stored.`, { call, outcome: 'unchanged' });
}
