// abcd's egress proxy: the one way out of a sandbox's network namespace. It runs in abcd's own
// process, outside the sandbox, listening on a unix socket in a private folder that only that
// sandbox has bound in (its relay, relay.ts, carries the sandbox's loopback connections there).
// It speaks what HTTPS_PROXY / HTTP_PROXY clients send: CONNECT host:port for a tunnel (https,
// anything over TLS), and a request with an absolute http:// URL, forwarded. Each one is judged
// against the allow-list as the client named its host, resolved here, and connected to the
// address that was judged (a name cannot be re-resolved to another between check and use).
// Every one, allowed or refused, is reported once.
import { lookup } from 'node:dns/promises';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import { join } from 'node:path';
import { matchAllow, normalHost, reachableByName, type AllowEntry } from './network-allow.js';
import { serveOnSocket } from './socket-server.js';

/** One connection the sandbox asked for. */
export interface NetworkEvent {
  allowed: boolean;
  /** CONNECT (a tunnel), or the method of a plain http request. */
  method: string;
  /** `host:port` as asked, when it parsed as one; `(malformed)` otherwise. */
  target: string;
  /** Why it was refused, in words. */
  why?: string;
}

export interface EgressProxy {
  readonly socketPath: string;
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  /** A private folder (0700) the socket is made in; the sandbox has it bound in. */
  dir: string;
  /** Read on every connection: a runtime may add its model's endpoint after the proxy started. */
  allow: readonly AllowEntry[];
  /** The config key that would allow a refused host, for the refusal's text (`lanes.network.allow`). */
  allowKey: string;
  onEvent: (e: NetworkEvent) => void;
}

// A connect that takes longer than this is a host that does not answer.
const CONNECT_TIMEOUT_MS = 30_000;
// Headers meant for the proxy itself, or for one hop only: never passed on.
const HOP_HEADERS = new Set(['proxy-authorization', 'proxy-connection', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade']);

type Decision = { ok: true; address: string; host: string; port: number } | { ok: false; why: string; target: string };

export async function startEgressProxy(o: EgressProxyOptions): Promise<EgressProxy> {
  const socketPath = join(o.dir, 'proxy.sock');
  // The tunnel's upstream socket counts against the same cap as the sandbox's own.
  let track: (s: Socket) => boolean = () => false;
  const server = createServer((req, res) => void forward(o, req, res));
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => void tunnel(o, req, client, head, track));
  const served = await serveOnSocket(server, socketPath, 'the egress proxy');
  track = served.track;
  return { socketPath, close: () => served.close() };
}

/** CONNECT host:port: a tunnel once the target is allowed and answers. */
async function tunnel(o: EgressProxyOptions, req: IncomingMessage, client: Socket, head: Buffer, track: (s: Socket) => boolean) {
  client.on('error', () => client.destroy());
  const d = await decide(o, splitTarget(req.url ?? ''));
  report(o, 'CONNECT', d);
  if (!d.ok) return client.end(refusal(403, `abcd: ${d.target} is refused: ${d.why}\n`));
  const up = connect({ host: d.address, port: d.port, timeout: CONNECT_TIMEOUT_MS });
  if (!track(up)) return client.destroy();
  up.once('timeout', () => up.destroy(new Error('the host did not answer')));
  up.once('error', (e) => {
    if (client.writable) client.end(refusal(502, `abcd: ${d.host}:${d.port} could not be reached: ${e.message}\n`));
    else client.destroy();
  });
  up.once('connect', () => {
    up.setTimeout(0);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) up.write(head);
    up.pipe(client);
    client.pipe(up);
    client.once('close', () => up.destroy());
    up.once('close', () => client.destroy());
  });
}

/** A request for an absolute http:// URL: forwarded once its host is allowed, the answer streamed back. */
async function forward(o: EgressProxyOptions, req: IncomingMessage, res: ServerResponse) {
  // Node's parser takes only the methods it knows; anything else never gets this far.
  const method = /^[A-Z]{1,20}$/.test(req.method ?? '') ? req.method! : '(unknown)';
  let url: URL | undefined;
  try {
    url = new URL(req.url ?? '');
  } catch {
    // a single parse: the sandbox's request line, which may be no URL at all
    url = undefined;
  }
  if (url?.protocol !== 'http:' || method === '(unknown)') {
    report(o, method, { ok: false, why: 'not a proxy request for an http:// URL', target: '(malformed)' });
    return answer(res, 400, 'abcd: this proxy takes CONNECT host:port or a request for an absolute http:// URL\n');
  }
  const d = await decide(o, { host: url.hostname, port: url.port || '80' });
  report(o, method, d);
  if (!d.ok) return answer(res, 403, `abcd: ${d.target} is refused: ${d.why}\n`);
  const up = request({
    host: d.address,
    port: d.port,
    method,
    path: `${url.pathname}${url.search}`,
    // A forwarding proxy says so (RFC 9110 Via): the server can tell the request went through one.
    headers: { ...passedOn(req.headers), via: [req.headers.via, `1.1 abcd`].filter(Boolean).join(', ') },
    agent: false,
    timeout: CONNECT_TIMEOUT_MS,
  });
  up.once('timeout', () => up.destroy(new Error('the host did not answer')));
  up.once('socket', (s) => s.once('connect', () => s.setTimeout(0)));
  up.once('error', (e) =>
    res.headersSent ? res.destroy() : answer(res, 502, `abcd: ${d.host}:${d.port} could not be reached: ${e.message}\n`),
  );
  up.once('response', (r) => {
    res.writeHead(r.statusCode ?? 502, r.statusMessage, passedOn(r.headers));
    r.pipe(res);
  });
  res.once('close', () => up.destroy());
  req.pipe(up);
}

/** `host:port` of a CONNECT line (an IPv6 host in brackets). */
function splitTarget(target: string): { host: string; port: string } {
  const m = /^(\[[^\]]*\]|[^:]*):(\d{1,5})$/.exec(target);
  return m ? { host: m[1]!, port: m[2]! } : { host: '', port: '' };
}

async function decide(o: EgressProxyOptions, t: { host: string; port: string }): Promise<Decision> {
  const host = normalHost(t.host);
  const port = Number(t.port);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) return { ok: false, why: 'not a host:port', target: '(malformed)' };
  const target = isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
  const entry = matchAllow(o.allow, host, port);
  if (!entry) return { ok: false, why: `not in ${o.allowKey}`, target };
  // An entry named the address itself: that is where it goes.
  if (isIP(host) !== 0) return { ok: true, address: host, host, port };
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true });
  } catch (e) {
    return { ok: false, why: `it does not resolve (${(e as NodeJS.ErrnoException).code ?? 'error'})`, target };
  }
  const first = addresses[0];
  // A wildcard covers names anyone under the domain may point anywhere: never at this computer.
  if (!first || (entry.wildcard && addresses.some((a) => !reachableByName(a.address))))
    return { ok: false, why: 'it resolves to a loopback or link-local address (name the host or the address itself to allow it)', target };
  return { ok: true, address: first.address, host, port };
}

function report(o: EgressProxyOptions, method: string, d: Decision): void {
  const target = d.ok ? (isIP(d.host) === 6 ? `[${d.host}]:${d.port}` : `${d.host}:${d.port}`) : d.target;
  o.onEvent({ allowed: d.ok, method, target, ...(d.ok ? {} : { why: d.why }) });
}

function passedOn(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = String(headers.connection ?? '')
    .toLowerCase()
    .split(',')
    .map((h) => h.trim());
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_HEADERS.has(k) && !named.includes(k)) out[k] = v;
  return out;
}

function refusal(status: 403 | 502, text: string): string {
  const reason = status === 403 ? 'Forbidden' : 'Bad Gateway';
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
}

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' });
  res.end(text);
}
