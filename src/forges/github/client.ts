// The one way the GitHub forge talks HTTP: node's global fetch, a token asked for on every
// call (a refreshed App token is picked up without rebuilding the client), a deadline on every
// call and one for the whole verb (rule 1), and every failure mapped to a named refusal.
//
// Why fetch and not @octokit/request (which the credential code uses): this client's job is
// the error mapping, and octokit reports a refused connection or a timeout as "status 500",
// the same as GitHub's own 500; fetch keeps "GitHub answered 5xx" and "no answer" apart and
// hands over the raw headers (rate limits) and body (GraphQL errors arrive in a 200).
import type { z } from 'zod';
import type { Clock } from '../../deps.js';
import { DeadlineReached, UnsafeEnvironment } from '../../refusals.js';
import { formatDuration } from '../../time/duration.js';
import { githubApiUrls } from './api-urls.js';
import { refusalForGraphqlErrors } from './graphql-refusals.js';
import { garbage, outcomeOf, refusalForAnswer, refusalForNoAnswer, type CallInfo } from './http-refusals.js';
import { parseAnswer } from './shapes.js';

/** Per call: GitHub answers these calls in well under a second; past this it is not coming. */
export const CALL_TIMEOUT_MS = 15_000;
// Every GitHub token format is visible ASCII without spaces; new formats vary only in length.
const TOKEN_CHARS = /^[\x21-\x7e]+$/;

export interface GitHubClientOptions {
  /** The forge host (`github.com` or an Enterprise host); default github.com. */
  host?: string;
  /** Overrides for the API URLs (tests point them at 127.0.0.1). */
  restUrl?: string;
  graphqlUrl?: string;
  /** Supplies the App token; asked once per call, never logged. */
  token: () => Promise<string>;
  clock: Clock;
  callTimeoutMs?: number;
  /** Instant (clock milliseconds) after which no call starts; it also cuts a call in flight short. */
  deadlineAt?: number;
}

export interface RestCall {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  /** Path below the REST base, with its segments already encoded. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** What the call is for, in words, for messages. */
  what: string;
  /** An earlier deadline than the client's for this call alone (a wait's own deadline). */
  until?: number;
}

export interface GraphqlCall {
  /** The operation's name, as written in the query (the test stub routes on it). */
  operation: string;
  query: string;
  variables: Record<string, unknown>;
  what: string;
  until?: number;
}

export class GitHubClient {
  readonly restUrl: string;
  readonly graphqlUrl: string;

  constructor(private readonly o: GitHubClientOptions) {
    const urls = githubApiUrls(o.host ?? 'github.com');
    this.restUrl = (o.restUrl ?? urls.rest).replace(/\/+$/, '');
    this.graphqlUrl = o.graphqlUrl ?? urls.graphql;
  }

  /** A REST call; a GET is a read, anything else a write. Resolves to the body, checked by `schema`. */
  async rest<S extends z.ZodType>(c: RestCall, schema: S): Promise<z.infer<S>> {
    const qs = c.query ? `?${new URLSearchParams(c.query).toString()}` : '';
    const info = { call: `${c.method} ${c.path} (${c.what})`, write: c.method !== 'GET' };
    const a = await this.send({ url: `${this.restUrl}${c.path}${qs}`, method: c.method, body: c.body, info, until: c.until });
    return parseAnswer(schema, a.data, info);
  }

  /** A GraphQL call; a `mutation` is a write. Resolves to `data` checked by `schema`, or refuses on `errors`. */
  async graphql<S extends z.ZodType>(c: GraphqlCall, schema: S): Promise<z.infer<S>> {
    const info = { call: `GraphQL ${c.operation} (${c.what})`, write: /^\s*mutation\b/.test(c.query) };
    const body = { query: c.query, variables: c.variables, operationName: c.operation };
    const a = await this.send({ url: this.graphqlUrl, method: 'POST', body, info, until: c.until });
    const d = a.data as { data?: unknown; errors?: unknown } | null;
    if (typeof d !== 'object' || d === null) throw garbage(info, 'a JSON object');
    if (Array.isArray(d.errors) && d.errors.length > 0) throw refusalForGraphqlErrors(d.errors, info, this.o.clock.now());
    if (typeof d.data !== 'object' || d.data === null) throw garbage(info, 'data');
    return parseAnswer(schema, d.data, info);
  }

  private async send({ url, method, body, info, until = Infinity }: { url: string; method: string; body: unknown; info: CallInfo; until?: number }) {
    const { clock } = this.o;
    const callTimeout = this.o.callTimeoutMs ?? CALL_TIMEOUT_MS;
    const started = clock.now();
    const left = Math.min(this.o.deadlineAt ?? Infinity, until) - started;
    if (left <= 0) {
      throw new DeadlineReached(`the deadline passed before ${info.call}; nothing was sent to GitHub.`, {
        call: info.call,
        waitedOn: 'GitHub',
        outcome: 'unchanged',
      });
    }
    const token = await this.o.token();
    // fetch quotes an invalid header value in its error: a token with a newline would be printed.
    if (!TOKEN_CHARS.test(token)) {
      throw new UnsafeEnvironment(`the App token for ${info.call} is empty or not printable ASCII; nothing was sent to GitHub.`, {
        call: info.call,
        reason: 'malformed-token',
      });
    }
    const timeoutMs = Math.min(callTimeout, left);
    const signal = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${token}`,
      'user-agent': 'abcd',
      'x-github-api-version': '2022-11-28',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let responseHeaders: Headers;
    let text: string;
    try {
      const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
      status = res.status;
      responseHeaders = res.headers;
      text = await res.text();
    } catch (e) {
      if (!signal.aborted) throw refusalForNoAnswer(e, info);
      if (timeoutMs < callTimeout) {
        // The verb's own deadline cut the call short, not GitHub's slowness: a deadline refusal.
        const waited = clock.now() - started;
        throw new DeadlineReached(
          `the deadline came after waiting ${formatDuration(waited)} for GitHub to answer ${info.call}` +
            (info.write ? '; it may have been carried out: read the pull request again.' : '; nothing changed.'),
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
        // An HTML error page from a proxy or an overloaded front end: judge by the status alone.
        if (status >= 200 && status < 300) throw garbage(info, 'a JSON body');
        data = null;
      }
    }
    if (status < 200 || status >= 300) throw refusalForAnswer({ status, headers: responseHeaders, data }, info, clock.now());
    return { status, data };
  }
}
