// Turns what GitHub answered (or did not) into abcd's refusals (DESIGN "Exit codes"):
//   401/403        → UnsafeEnvironment (7): the App token is expired, revoked or lacks a permission
//   403/429 limit  → RemoteUnavailable (8, reason rate-limited): nothing changed; says when it resets
//   404            → ForgeRejected (3, reason not-found): GitHub answers 404, not 403, for a private
//                    repository the token cannot see, so the message names both the repository
//                    and the App's installation
//   405/409/422    → ForgeRejected (3) with GitHub's own message
//   5xx, no answer → RemoteUnavailable (8): outcome `unchanged` for a read, `unknown` for a write
// Messages never carry the token: only the call, the status and GitHub's message.
import { ForgeRejected, RemoteUnavailable, UnsafeEnvironment, type Outcome, type Refusal } from '../../core/refusals.js';
import { formatDuration, formatInstant } from '../../core/duration.js';

export interface CallInfo {
  /** The call in words: `POST /repos/o/r/pulls (open a pull request for feature)`. */
  call: string;
  /** Whether the call may change something on GitHub; a lost answer then has an unknown outcome. */
  write: boolean;
  /** For a write: what to do before retrying when its outcome is unknown. */
  recheck?: string;
  /** What a 404 most likely means for this call (the App not installed on the repository). */
  notFound?: string;
}

const RECHECK_PULL = 'read the pull request again before retrying';

export interface Answer {
  status: number;
  headers: Headers;
  data: unknown;
}

// GitHub asks clients that hit a secondary limit without a retry-after to wait at least a minute.
const SECONDARY_LIMIT_WAIT_MS = 60_000;
// GitHub's messages are short; a longer one is an HTML error page or worse, not worth printing.
const MAX_MESSAGE_CHARS = 500;

export function outcomeOf(info: CallInfo): Outcome {
  return info.write ? 'unknown' : 'unchanged';
}

/** Maps a non-2xx answer; `now` is the clock's time, for when a rate limit resets. */
export function refusalForAnswer(a: Answer, info: CallInfo, now: number): Refusal {
  const { status } = a;
  const said = githubMessage(a.data);
  const base = { call: info.call, status, githubMessage: said };
  const limited = rateLimit(a, said, now);
  if (limited) {
    const at = formatInstant(limited.resetAt);
    return new RemoteUnavailable(
      `GitHub rate-limited ${info.call} (HTTP ${status}, ${limited.kind} limit); nothing changed. ` +
        `The limit resets at ${at} (in ${formatDuration(Math.max(0, limited.resetAt - now))}); try again then.`,
      { ...base, reason: 'rate-limited', limit: limited.kind, resetAt: at, outcome: 'unchanged' },
    );
  }
  if (status === 401) {
    return new UnsafeEnvironment(
      `GitHub refused the App token for ${info.call} (HTTP 401: ${said}): it is expired or revoked. ` +
        'Mint a fresh token; if the App authorization itself is gone, run "abcd setup-app".',
      { ...base, reason: 'token-rejected', fix: 'abcd setup-app' },
    );
  }
  if (status === 403) {
    const permission = missingPermission(a, info);
    if (permission) {
      return new UnsafeEnvironment(
        `GitHub forbade ${info.call} (HTTP 403: ${said}): the App's token lacks the ${permission.replace('=', ': ')} permission. ` +
          `Grant it in the App's settings (Permissions & events → Repository permissions → ${PERMISSION_NAMES[permission.split('=')[0]!] ?? permission}), ` +
          "then accept the new permissions on the App's installation (the repository's or organization's Settings → GitHub Apps → Configure); " +
          'the lane mints a token with it after that.',
        { ...base, reason: 'forbidden', permission, fix: 'the App settings, then the installation' },
      );
    }
    return new UnsafeEnvironment(
      `GitHub forbade ${info.call} (HTTP 403: ${said}): the App token lacks a permission on this repository ` +
        "(pull requests and contents: read and write) or the App is not installed on it. Check the App's permissions and installation.",
      { ...base, reason: 'forbidden' },
    );
  }
  if (status === 404) {
    const likely = info.notFound ? `${info.notFound}; ` : '';
    return new ForgeRejected(
      `GitHub answered 404 to ${info.call}: not found: ${likely}check the repository and the App's installation ` +
        '(GitHub hides a private repository the token cannot see behind a 404).',
      { ...base, reason: 'not-found' },
    );
  }
  if (status >= 400 && status < 500) {
    const reason = status === 409 ? 'conflict' : status === 422 ? 'unprocessable' : status === 405 ? 'not-allowed' : `http-${status}`;
    return new ForgeRejected(`GitHub rejected ${info.call} (HTTP ${status}): ${said}`, { ...base, reason });
  }
  const next = info.write
    ? `GitHub may or may not have carried it out: ${info.recheck ?? RECHECK_PULL}.`
    : 'Nothing changed; try again later.';
  return new RemoteUnavailable(`GitHub answered HTTP ${status} to ${info.call}. ${next}`, {
    ...base,
    reason: 'server-error',
    outcome: outcomeOf(info),
  });
}

/** No answer at all: a refused connection, DNS, a reset, or the per-call deadline. */
export function refusalForNoAnswer(e: unknown, info: CallInfo & { timedOutAfterMs?: number }): RemoteUnavailable {
  const why =
    info.timedOutAfterMs !== undefined
      ? `gave no answer within ${formatDuration(info.timedOutAfterMs)}`
      : `could not be reached (${networkCause(e)})`;
  const next = info.write ? `The call may have reached GitHub: ${info.recheck ?? RECHECK_PULL}.` : 'Nothing changed; try again later.';
  return new RemoteUnavailable(`GitHub ${why} for ${info.call}. ${next}`, {
    call: info.call,
    reason: info.timedOutAfterMs !== undefined ? 'timeout' : 'unreachable',
    outcome: outcomeOf(info),
  });
}

/** A 2xx answer without what GitHub always sends: garbage (exit 8). */
export function garbage(info: CallInfo, what: string): RemoteUnavailable {
  const next = info.write ? `It may have been carried out: ${info.recheck ?? RECHECK_PULL}.` : 'Nothing changed.';
  return new RemoteUnavailable(`GitHub answered ${info.call} without ${what}. ${next}`, {
    call: info.call,
    reason: 'garbage',
    outcome: outcomeOf(info),
  });
}

/** GitHub's `message`, with the `errors[]` details a 422 carries, shortened. */
export function githubMessage(data: unknown): string {
  if (typeof data !== 'object' || data === null) return typeof data === 'string' && data ? clip(data) : 'no message';
  const d = data as { message?: unknown; errors?: unknown };
  const parts = typeof d.message === 'string' ? [d.message] : [];
  if (Array.isArray(d.errors)) {
    for (const err of d.errors) {
      if (typeof err === 'string') parts.push(err);
      else if (typeof err === 'object' && err !== null && 'message' in err && typeof err.message === 'string') parts.push(err.message);
      else if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') parts.push(err.code);
    }
  }
  return parts.length ? clip(parts.join('; ')) : 'no message';
}

function rateLimit(a: Answer, said: string, now: number): { kind: 'primary' | 'secondary'; resetAt: number } | undefined {
  if (a.status !== 403 && a.status !== 429) return undefined;
  const retryAfter = Number(a.headers.get('retry-after'));
  const reset = Number(a.headers.get('x-ratelimit-reset'));
  const secondary = /secondary rate limit/i.test(said) || a.headers.has('retry-after');
  const primary = a.headers.get('x-ratelimit-remaining') === '0';
  if (!secondary && !primary && a.status !== 429) return undefined;
  const resetAt =
    Number.isFinite(retryAfter) && a.headers.has('retry-after')
      ? now + retryAfter * 1000
      : primary && Number.isFinite(reset) && reset > 0
        ? reset * 1000
        : now + SECONDARY_LIMIT_WAIT_MS;
  return { kind: primary && !secondary ? 'primary' : 'secondary', resetAt };
}

// How the App's settings page names a permission GitHub's header names.
const PERMISSION_NAMES: Readonly<Record<string, string>> = {
  issues: 'Issues: Read and write',
  contents: 'Contents: Read and write',
  pull_requests: 'Pull requests: Read and write',
  workflows: 'Workflows: Read and write',
};

/**
 * The permission a 403 says is missing: GitHub's X-Accepted-GitHub-Permissions header
 * (`issues=write`, alternatives after `;`), else what an issue call needs. Undefined when
 * neither names one (the App not installed, a repository rule).
 */
function missingPermission(a: Answer, info: CallInfo): string | undefined {
  const accepted = a.headers.get('x-accepted-github-permissions')?.split(';')[0]?.split(',')[0]?.trim();
  if (accepted && /^[a-z_]+=(read|write)$/.test(accepted)) return accepted;
  if (/\/issues\b/.test(info.call)) return `issues=${info.write ? 'write' : 'read'}`;
  return undefined;
}

function networkCause(e: unknown): string {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  if (typeof cause === 'object' && cause !== null && 'code' in cause && typeof cause.code === 'string') return cause.code;
  return cause instanceof Error ? cause.message : String(cause);
}

function clip(s: string): string {
  return s.length > MAX_MESSAGE_CHARS ? `${s.slice(0, MAX_MESSAGE_CHARS)}…` : s;
}
