// GraphQL reports most failures inside an HTTP 200 as `errors: [{type, message}]`. The `type`
// decides the refusal the way the HTTP status does for REST (see http-refusals.ts); a failure
// with no type is GitHub refusing the act (exit 3), except its "Something went wrong" internal
// error, which is an outage (exit 8) whose outcome is unknown for a mutation.
import { ForgeRejected, RemoteUnavailable, UnsafeEnvironment, type Refusal } from '../../core/refusals.js';
import { formatDuration, formatInstant } from '../../core/duration.js';
import { outcomeOf, type CallInfo } from './http-refusals.js';

// GraphQL's rate limit answer carries no reset time in the body; GitHub's guidance is to wait.
const GRAPHQL_LIMIT_WAIT_MS = 60_000;
const MAX_MESSAGE_CHARS = 500;

export interface GraphqlError {
  type?: string;
  message: string;
}

export function refusalForGraphqlErrors(raw: unknown[], info: CallInfo, now: number): Refusal {
  const errors = raw.map(toError);
  const types = new Set(errors.map((e) => e.type));
  const said = clip(errors.map((e) => e.message).join('; '));
  const base = { call: info.call, graphqlErrors: errors, githubMessage: said };
  if (types.has('RATE_LIMITED')) {
    const at = formatInstant(now + GRAPHQL_LIMIT_WAIT_MS);
    return new RemoteUnavailable(
      `GitHub rate-limited ${info.call}; nothing changed. Try again after ${at} (in ${formatDuration(GRAPHQL_LIMIT_WAIT_MS)}).`,
      { ...base, reason: 'rate-limited', resetAt: at, outcome: 'unchanged' },
    );
  }
  if (types.has('FORBIDDEN')) {
    return new UnsafeEnvironment(
      `GitHub forbade ${info.call} (${said}): the App token lacks a permission on this repository ` +
        '(pull requests and contents: read and write) or the App is not installed on it.',
      { ...base, reason: 'forbidden' },
    );
  }
  if (types.has('NOT_FOUND')) {
    return new ForgeRejected(
      `GitHub found nothing for ${info.call} (${said}): not found: check the repository and the App's installation.`,
      {
        ...base,
        reason: 'not-found',
      },
    );
  }
  if (errors.some((e) => /something went wrong/i.test(e.message))) {
    const next = info.write ? 'It may have been carried out: read the pull request again.' : 'Nothing changed; try again later.';
    return new RemoteUnavailable(`GitHub failed internally on ${info.call} (${said}). ${next}`, {
      ...base,
      reason: 'server-error',
      outcome: outcomeOf(info),
    });
  }
  return new ForgeRejected(`GitHub rejected ${info.call}: ${said}`, { ...base, reason: 'graphql-error' });
}

function toError(e: unknown): GraphqlError {
  if (typeof e !== 'object' || e === null) return { message: String(e) };
  const o = e as { type?: unknown; message?: unknown };
  const message = typeof o.message === 'string' ? o.message : 'no message';
  return typeof o.type === 'string' ? { type: o.type, message } : { message };
}

function clip(s: string): string {
  return s.length > MAX_MESSAGE_CHARS ? `${s.slice(0, MAX_MESSAGE_CHARS)}…` : s;
}
