// A GitHub that answers only what a test told it to (gh's httpmock): a node:http server on
// 127.0.0.1 where a test registers stubs by method + path (+ GraphQL operation name), every
// request is recorded, and verify() fails when a stub went unused, a request matched no stub,
// or a stub's assertion on the request failed. The Authorization header is never kept as sent:
// only its scheme and a digest of the token, so no failure message can print a token.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubReply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON; a string is sent as it is (an HTML error page, garbage). */
  body?: unknown;
  /** Holds the answer this long: a slow GitHub, or one that never answers before a deadline. */
  delayMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The GraphQL operation name, for POST /graphql. */
  operation?: string;
  body: unknown;
  /** `Bearer sha256:<digest>`; compare with bearerDigest(token). Null when none was sent. */
  authorization: string | null;
  /** The If-None-Match header of a conditional GET; null when none was sent. */
  ifNoneMatch: string | null;
}

export interface StubRoute {
  method: string;
  path: string;
  operation?: string;
  /** Query parameters that must be present with these values. */
  query?: Record<string, string>;
  /** A function may return a promise: the answer waits for it (an act that must finish first). */
  reply: StubReply | ((req: RecordedRequest, n: number) => StubReply | Promise<StubReply>);
  /** Checks the request; a throw fails verify() and answers 418 so the flow stops early. */
  assert?: (req: RecordedRequest) => void;
  /** Requests it answers: 1 by default, or 'many' (polling). */
  times?: number | 'many';
}

interface Registered extends StubRoute {
  used: number;
}

/** What the stub records for `Bearer <token>`. */
export function bearerDigest(token: string): string {
  return `Bearer sha256:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
}

export class GitHubStub {
  readonly requests: RecordedRequest[] = [];
  private readonly routes: Registered[] = [];
  private readonly problems: string[] = [];
  private readonly minted = new Map<string, Record<string, string>>();
  private server!: Server;
  private base = '';

  static async start(): Promise<GitHubStub> {
    const stub = new GitHubStub();
    stub.server = createServer((req, res) => void stub.handle(req, res));
    await new Promise<void>((resolve) => stub.server.listen(0, '127.0.0.1', resolve));
    stub.base = `http://127.0.0.1:${(stub.server.address() as AddressInfo).port}`;
    return stub;
  }

  /** The REST base URL (paths such as /repos/o/r/pulls go below it). */
  get url(): string {
    return this.base;
  }

  get graphqlUrl(): string {
    return `${this.base}/graphql`;
  }

  on(route: StubRoute): void {
    this.routes.push({ ...route, used: 0 });
  }

  /** Requests to method + path (+ operation), in arrival order. */
  calls(method: string, path: string, operation?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path && (operation === undefined || r.operation === operation));
  }

  /** Throws unless every stub was used and every request was stubbed and passed its assertion. */
  verify(): void {
    const unused = this.routes.filter((r) => r.used === 0 || (typeof r.times === 'number' && r.used < r.times));
    const lines = [...unused.map((r) => `unused stub: ${label(r)} (used ${r.used} of ${r.times ?? 1})`), ...this.problems];
    if (lines.length) throw new Error(`GitHub stub:\n  ${lines.join('\n  ')}`);
  }

  /** Forgets stubs, requests, problems and minted tokens (between tests). */
  reset(): void {
    this.minted.clear();
    this.routes.length = 0;
    this.requests.length = 0;
    this.problems.length = 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** An installation token this stub handed out, by its digest: the permissions it was minted with. */
  private noteMinted(req: RecordedRequest, reply: StubReply): void {
    if (req.method !== 'POST' || !/^\/app\/installations\/\d+\/access_tokens$/.test(req.path)) return;
    const token = (reply.body as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string') return;
    const asked = (req.body as { permissions?: Record<string, string> } | null)?.permissions;
    // Without a permissions field GitHub grants everything the installation has.
    this.minted.set(bearerDigest(token), asked ?? { issues: 'write' });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.base);
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    const auth = req.headers.authorization;
    const bearer = auth && /^Bearer (.+)$/.exec(auth);
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      ...(operationOf(body) ? { operation: operationOf(body)! } : {}),
      body,
      authorization: bearer ? bearerDigest(bearer[1]!) : auth ? 'unrecognized scheme' : null,
      ifNoneMatch: typeof req.headers['if-none-match'] === 'string' ? req.headers['if-none-match'] : null,
    };
    this.requests.push(recorded);
    // As GitHub does: an installation token minted without issues: write cannot write an issue.
    const minted = recorded.authorization ? this.minted.get(recorded.authorization) : undefined;
    if (minted && ISSUE_WRITE.test(`${recorded.method} ${recorded.path}`) && minted.issues !== 'write') {
      return send(res, {
        status: 403,
        headers: { 'x-accepted-github-permissions': 'issues=write' },
        body: { message: 'Resource not accessible by integration', status: '403' },
      });
    }
    const route = this.routes.find((r) => matches(r, recorded) && (r.times === 'many' || r.used < (r.times ?? 1)));
    if (!route) {
      this.problems.push(`unmatched request: ${recorded.method} ${recorded.path}${recorded.operation ? ` ${recorded.operation}` : ''}`);
      return send(res, { status: 404, body: { message: 'Not Found (no stub)' } });
    }
    route.used++;
    try {
      route.assert?.(recorded);
    } catch (e) {
      this.problems.push(`assertion failed for ${label(route)}: ${e instanceof Error ? e.message : String(e)}`);
      return send(res, { status: 418, body: { message: 'stub assertion failed' } });
    }
    const reply = typeof route.reply === 'function' ? await route.reply(recorded, route.used) : route.reply;
    this.noteMinted(recorded, reply);
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    send(res, reply);
  }
}

// The REST calls that write an issue: create one, comment on it, edit or close it, its labels.
const ISSUE_WRITE = /^(POST|PATCH|PUT|DELETE) \/repos\/[^/]+\/[^/]+\/issues(\/|$)/;

function matches(r: StubRoute, q: RecordedRequest): boolean {
  if (r.method !== q.method || r.path !== q.path) return false;
  if (r.operation !== undefined && r.operation !== q.operation) return false;
  return Object.entries(r.query ?? {}).every(([k, v]) => q.query[k] === v);
}

function operationOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { operationName?: unknown; query?: unknown };
  if (typeof b.operationName === 'string') return b.operationName;
  const m = typeof b.query === 'string' ? /^\s*(?:query|mutation)\s+(\w+)/.exec(b.query) : null;
  return m?.[1];
}

function label(r: StubRoute): string {
  return `${r.method} ${r.path}${r.operation ? ` ${r.operation}` : ''}`;
}

function send(res: ServerResponse, reply: StubReply): void {
  if (res.destroyed) return; // the client gave up (a deadline test)
  // A 304 has no body, as HTTP says.
  const text = reply.status === 304 ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? null);
  res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
  res.end(text);
}

// ---- GitHub-shaped answers, with only the fields abcd reads ------------------------------

/** A REST pull request object. */
export function restPull(p: { number: number; head: string; branch: string; base?: string; title?: string; body?: string | null }) {
  return {
    number: p.number,
    node_id: `PR_node${p.number}`,
    title: p.title ?? 'Land fix-login',
    body: p.body === undefined ? 'abcd lands local:item:fix-login' : p.body,
    html_url: `https://github.com/octo/widgets/pull/${p.number}`,
    head: { ref: p.branch, sha: p.head },
    base: { ref: p.base ?? 'main' },
  };
}

/** A GraphQL answer to AbcdPullRequestState; `over` replaces pullRequest fields. */
export function pullStateAnswer(p: { number: number; head: string }, over: Record<string, unknown> = {}) {
  return {
    data: {
      repository: {
        pullRequest: {
          id: `PR_node${p.number}`,
          number: p.number,
          state: 'OPEN',
          merged: false,
          headRefOid: p.head,
          baseRefName: 'main',
          mergeable: 'MERGEABLE',
          mergeStateStatus: 'CLEAN',
          isMergeQueueEnabled: true,
          isInMergeQueue: false,
          mergeQueueEntry: null,
          mergeCommit: null,
          url: `https://github.com/octo/widgets/pull/${p.number}`,
          ...over,
        },
      },
    },
  };
}
