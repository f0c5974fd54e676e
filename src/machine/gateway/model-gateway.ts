// abcd's model gateway: the agent's only way to its model, and the only holder of the key. It
// runs in abcd's own process, outside the sandbox, on a unix socket in a private folder the
// sandbox's relay reaches (sandbox-network.ts `forwards`). The agent is given the gateway's
// in-sandbox address as its base URL and a placeholder key; each request to one of the model
// API's own endpoints is sent on to the real API with the real key in place of whatever the
// agent sent, and the answer streams back unchanged while its usage is read from it
// (usage-tap.ts). Any other path is refused and reported; once the budget says no, the next
// request is answered with an API error the CLIs do not retry, so a turn cannot outrun its pool.
// What differs between the APIs it carries (Messages, Responses, Gemini) is their dialect (dialects.ts).
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { CycleUsage } from '../budget/usage.js';
import { DIALECTS, type Dialect, type DialectName, type GatewayError } from './dialects.js';
import { UsageTap } from './usage-tap.js';
import { serveOnSocket } from '../sandbox/socket-server.js';

export type { DialectName } from './dialects.js';

/** One request the agent made, as the run's log and the cycle's counts see it: never a header or a body. */
export interface GatewayEvent {
  method: string;
  /** The path asked for, without its query. */
  path: string;
  /** forwarded: sent to the API; refused: a path that is not the API's; budget: the pool is used up. */
  outcome: 'forwarded' | 'refused' | 'budget' | 'failed';
  /** The API's status (forwarded), or the one the gateway answered with. */
  status: number;
  usage?: CycleUsage;
  why?: string;
}

export interface ModelGateway {
  readonly socketPath: string;
  /**
   * The base URL the agent is given, at `host:port` inside the sandbox: the API's own path
   * prefix kept (a Codex provider's `/v1`), so the agent asks for the paths it always does.
   */
  agentBaseUrl(host: string, port: number): string;
  close(): Promise<void>;
}

/** Whether one model request may go out, and why not. */
export type ModelAdmission = { ok: true } | { ok: false; why: string };

/**
 * The real credential, read by abcd from its own environment: it goes to the API and nowhere
 * else, in place of whatever the agent sent.
 */
export interface GatewayCredential {
  /** The headers that carry it, set on every request sent on (`x-api-key`, `authorization`). */
  headers: Readonly<Record<string, string>>;
  /**
   * Flags a comma-separated header must hold for this credential (an OAuth token's
   * `anthropic-beta: oauth-2025-04-20`), added when the agent's request lacks them.
   */
  flags?: Readonly<Record<string, readonly string[]>>;
}

export interface ModelGatewayOptions {
  /** A private folder (0700) the socket is made in; the sandbox has it bound in. */
  dir: string;
  dialect: DialectName;
  /** The real API's base URL (ANTHROPIC_BASE_URL, the provider's base_url, or the default host). */
  upstream: URL;
  credential: GatewayCredential;
  /** Asked before each request is sent on (it may wait for it): a reason means the pool is used up. */
  admit?: () => ModelAdmission | Promise<ModelAdmission>;
  onEvent: (e: GatewayEvent) => void;
}

// A model request that has had no byte either way for this long is dead (a streamed answer sends
// pings far more often); the agent's own timeouts are shorter still.
const IDLE_TIMEOUT_MS = 10 * 60_000;
// Headers for one hop, or credentials the agent brought: never passed on.
const DROPPED_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'openai-organization',
  'openai-project',
  'accept-encoding',
]);

export async function startModelGateway(o: ModelGatewayOptions): Promise<ModelGateway> {
  const socketPath = join(o.dir, 'gateway.sock');
  const prefix = o.upstream.pathname.replace(/\/+$/, '');
  const served = await serveOnSocket(
    createServer((req, res) => handle(o, DIALECTS[o.dialect], prefix, req, res)),
    socketPath,
    'the model gateway',
  );
  return {
    socketPath,
    agentBaseUrl: (host, port) => `http://${host}:${port}${prefix}`,
    close: () => served.close(),
  };
}

function handle(o: ModelGatewayOptions, dialect: Dialect, prefix: string, req: IncomingMessage, res: ServerResponse): void {
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', 'http://gateway');
  const below = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) || '/' : undefined;
  const known = below !== undefined && dialect.endpoints.some((e) => e.method === method && e.path.test(below));
  if (!known) {
    req.resume();
    o.onEvent({ method, path: url.pathname, outcome: 'refused', status: 403, why: `not an endpoint of the ${dialect.title}` });
    const message = `abcd's model gateway sends only the ${dialect.title}'s own endpoints, not ${method} ${url.pathname}`;
    return void apiError(res, dialect, { status: 403, type: 'permission_error', code: 'endpoint_refused', message });
  }
  // The request's body waits, unread, while the pool is asked.
  void Promise.resolve()
    .then(() => o.admit?.() ?? { ok: true as const })
    .catch((e: unknown) => ({ ok: false as const, why: `the budget could not be read (${e instanceof Error ? e.message : String(e)})` }))
    .then((admitted) => {
      if (admitted.ok) return forward(o, dialect, { method, url }, req, res);
      req.resume();
      o.onEvent({ method, path: url.pathname, outcome: 'budget', status: 400, why: admitted.why });
      const message = `abcd stopped this request: ${admitted.why}`;
      apiError(res, dialect, { status: 400, type: 'invalid_request_error', code: 'budget_exhausted', message });
    });
}

function forward(
  o: ModelGatewayOptions,
  dialect: Dialect,
  asked: { method: string; url: URL },
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const { method, url } = asked;
  const target = new URL(o.upstream.origin);
  target.pathname = url.pathname;
  target.search = url.search;
  for (const name of dialect.droppedQuery ?? []) target.searchParams.delete(name);
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !DROPPED_HEADERS.has(k)) headers[k] = v;
  // A forwarding intermediary says so (RFC 9110 Via), as the egress proxy does.
  headers.via = [req.headers.via, '1.1 abcd-gateway'].filter(Boolean).join(', ');
  // Usage is read from the answer as it passes: it must come uncompressed.
  headers['accept-encoding'] = 'identity';
  Object.assign(headers, o.credential.headers);
  for (const [name, flags] of Object.entries(o.credential.flags ?? {})) headers[name] = withFlags(req.headers[name], flags);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const up = send(target, { method, headers, timeout: IDLE_TIMEOUT_MS }, (answer) => {
    const status = answer.statusCode ?? 502;
    const type = String(answer.headers['content-type'] ?? '');
    const tap = new UsageTap(dialect, type.includes('text/event-stream'));
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && k !== 'connection' && k !== 'keep-alive') out[k] = v;
    res.writeHead(status, out);
    answer.on('data', (c: Buffer) => {
      tap.push(c);
      res.write(c);
    });
    answer.on('end', () => {
      res.end();
      const usage = tap.usage();
      o.onEvent({ method, path: url.pathname, outcome: 'forwarded', status, ...(usage ? { usage } : {}) });
    });
    answer.on('error', () => res.destroy());
  });
  up.on('timeout', () => up.destroy(new Error(`no answer from ${target.host} for ${IDLE_TIMEOUT_MS / 60_000} minutes`)));
  up.on('error', (e) => {
    o.onEvent({ method, path: url.pathname, outcome: 'failed', status: 502, why: `${target.host}: ${e.message}` });
    if (res.headersSent) res.destroy();
    else {
      const message = `abcd's model gateway could not reach ${target.host}: ${e.message}`;
      apiError(res, dialect, { status: 502, type: 'api_error', code: 'upstream_unreachable', message });
    }
  });
  // The agent hung up: the API's answer is no longer wanted.
  res.on('close', () => {
    if (!res.writableFinished) up.destroy();
  });
  req.pipe(up);
}

/** An error in the API's own shape, so the agent's CLI reports it as the API's answer. */
function apiError(res: ServerResponse, dialect: Dialect, e: GatewayError): void {
  res.writeHead(e.status, { 'content-type': 'application/json' }).end(JSON.stringify(dialect.errorBody(e)));
}

/** A comma-separated header's value (the agent's, or none) with every flag in it. */
function withFlags(given: string | string[] | undefined, flags: readonly string[]): string {
  const have = [given ?? []]
    .flat()
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  return [...have, ...flags.filter((f) => !have.includes(f))].join(',');
}
