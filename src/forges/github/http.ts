// The one HTTP client abcd has for GitHub: node's global fetch with a deadline on every call,
// used by the forge (pull requests, merge queue) and the credential code (App tokens, refresh,
// device flow) alike, so the same answer maps to the same refusal whoever asked
// (http-refusals.ts). fetch, not @octokit/request: octokit reports a refused connection or a
// timeout as "status 500", the same as GitHub's own 500, and abcd must tell them apart (ADR 0029).
import { systemClock, type Clock } from '../../core/deps.js';
import { DeadlineReached, UnsafeEnvironment } from '../../core/refusals.js';
import { formatDuration } from '../../core/duration.js';
import { garbage, outcomeOf, refusalForAnswer, refusalForNoAnswer, type CallInfo } from './http-refusals.js';

/** Per call: GitHub answers in well under a second; past this it is not coming. */
export const CALL_TIMEOUT_MS = 15_000;
// Every GitHub token format is visible ASCII without spaces; new formats vary only in length.
const TOKEN_CHARS = /^[\x21-\x7e]+$/;

export interface HttpCall {
  url: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  /** `Bearer <token>`, `token <token>`; absent for the OAuth endpoints that take the client id. */
  authorization?: { scheme: 'Bearer' | 'token'; credential: string };
  /** Sent as JSON. */
  body?: unknown;
  /** A conditional GET: the ETag of the answer kept from last time; an unchanged one answers 304. */
  ifNoneMatch?: string;
  info: CallInfo;
  timeoutMs?: number;
  /** The verb's own deadline, not GitHub's slowness, set timeoutMs: a cut call is DeadlineReached. */
  cutByDeadline?: boolean;
  clock?: Clock;
}

export interface HttpAnswer {
  status: number;
  /** The parsed JSON body; null when there was none (and on a 304). */
  data: unknown;
  /** The answer's ETag and Link headers, when it had them. */
  etag?: string;
  link?: string;
}

/** One call to GitHub; a 2xx answer resolves, anything else is thrown as a named refusal. */
export async function callGitHub(c: HttpCall): Promise<HttpAnswer> {
  const { info } = c;
  const clock = c.clock ?? systemClock;
  const timeoutMs = c.timeoutMs ?? CALL_TIMEOUT_MS;
  const headers: Record<string, string> = {
    accept: 'application/vnd.github+json, application/json',
    'user-agent': 'abcd',
    'x-github-api-version': '2022-11-28',
  };
  if (c.authorization) {
    // fetch quotes an invalid header value in its error: a token with a newline would be printed.
    if (!TOKEN_CHARS.test(c.authorization.credential)) {
      throw new UnsafeEnvironment(`the token for ${info.call} is empty or not printable ASCII; nothing was sent to GitHub.`, {
        call: info.call,
        reason: 'malformed-token',
      });
    }
    headers.authorization = `${c.authorization.scheme} ${c.authorization.credential}`;
  }
  if (c.body !== undefined) headers['content-type'] = 'application/json';
  if (c.ifNoneMatch !== undefined) headers['if-none-match'] = c.ifNoneMatch;
  const started = clock.now();
  const signal = AbortSignal.timeout(timeoutMs);
  let status: number;
  let responseHeaders: Headers;
  let text: string;
  try {
    const res = await fetch(c.url, { method: c.method, headers, body: c.body === undefined ? undefined : JSON.stringify(c.body), signal });
    status = res.status;
    responseHeaders = res.headers;
    text = await res.text();
  } catch (e) {
    if (!signal.aborted) throw refusalForNoAnswer(e, info);
    if (c.cutByDeadline) {
      const waited = clock.now() - started;
      throw new DeadlineReached(
        `the deadline came after waiting ${formatDuration(waited)} for GitHub to answer ${info.call}` +
          (info.write ? `; it may have been carried out: ${info.recheck ?? 'read the pull request again'}.` : '; nothing changed.'),
        { call: info.call, waitedOn: 'GitHub', waitedMs: waited, outcome: outcomeOf(info) },
      );
    }
    throw refusalForNoAnswer(e, { ...info, timedOutAfterMs: timeoutMs });
  }
  let data: unknown = null;
  if (text !== '') {
    try {
      data = JSON.parse(text);
    } catch {
      // a single parse: the body.
      // An HTML error page from a proxy or an overloaded front end: judge by the status alone.
      if (status >= 200 && status < 300) throw garbage(info, 'a JSON body');
      data = null;
    }
  }
  // 304 only ever answers a conditional GET: what was kept from last time still holds.
  const notModified = status === 304 && c.ifNoneMatch !== undefined;
  if (!notModified && (status < 200 || status >= 300))
    throw refusalForAnswer({ status, headers: responseHeaders, data }, info, clock.now());
  const etag = responseHeaders.get('etag');
  const link = responseHeaders.get('link');
  return { status, data, ...(etag ? { etag } : {}), ...(link ? { link } : {}) };
}
