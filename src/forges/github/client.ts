// The GitHub forge's calls: REST and GraphQL over the one HTTP client (http.ts), a token asked
// for on every call (a refreshed App token is picked up without rebuilding the client), a
// deadline on every call and one for the whole verb (every wait ends), every failure a named refusal.
import type { z } from 'zod';
import type { Clock } from '../../core/deps.js';
import { DeadlineReached } from '../../core/refusals.js';
import { githubApiUrls } from './api-urls.js';
import { refusalForGraphqlErrors } from './graphql-refusals.js';
import { callGitHub, CALL_TIMEOUT_MS } from './http.js';
import { garbage, type CallInfo } from './http-refusals.js';
import { parseAnswer } from './shapes.js';

export { CALL_TIMEOUT_MS };

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

  /**
   * A conditional GET: with the ETag kept from the last answer, an unchanged resource answers
   * 304 (GitHub does not count it against the rate limit) and `data` is absent: the caller's
   * kept body still holds. A changed one is checked by `schema` like any answer.
   */
  async restConditional<S extends z.ZodType>(
    c: Omit<RestCall, 'method' | 'body'>,
    schema: S,
    etag: string | undefined,
  ): Promise<{ notModified: true } | { notModified: false; data: z.infer<S>; etag?: string; link?: string }> {
    const qs = c.query ? `?${new URLSearchParams(c.query).toString()}` : '';
    const info = { call: `GET ${c.path} (${c.what})`, write: false };
    const a = await this.send({ url: `${this.restUrl}${c.path}${qs}`, method: 'GET', body: undefined, info, until: c.until, etag });
    if (a.status === 304) return { notModified: true };
    return {
      notModified: false,
      data: parseAnswer(schema, a.data, info),
      ...(a.etag ? { etag: a.etag } : {}),
      ...(a.link ? { link: a.link } : {}),
    };
  }

  /** The full URL of a REST path with its query, as restConditional sends it (what a kept answer is filed under). */
  restUrlOf(path: string, query?: Record<string, string>): string {
    return `${this.restUrl}${path}${query ? `?${new URLSearchParams(query).toString()}` : ''}`;
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

  private async send({
    url,
    method,
    body,
    info,
    until = Infinity,
    etag,
  }: {
    url: string;
    method: RestCall['method'];
    body: unknown;
    info: CallInfo;
    until?: number;
    etag?: string | undefined;
  }) {
    const { clock } = this.o;
    const callTimeout = this.o.callTimeoutMs ?? CALL_TIMEOUT_MS;
    const left = Math.min(this.o.deadlineAt ?? Infinity, until) - clock.now();
    if (left <= 0) {
      throw new DeadlineReached(`the deadline passed before ${info.call}; nothing was sent to GitHub.`, {
        call: info.call,
        waitedOn: 'GitHub',
        outcome: 'unchanged',
      });
    }
    const token = await this.o.token();
    const timeoutMs = Math.min(callTimeout, left);
    return callGitHub({
      url,
      method,
      body,
      ...(etag !== undefined ? { ifNoneMatch: etag } : {}),
      info,
      clock,
      timeoutMs,
      cutByDeadline: timeoutMs < callTimeout,
      authorization: { scheme: 'Bearer', credential: token },
    });
  }
}
