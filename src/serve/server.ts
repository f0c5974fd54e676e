// `abcd serve`'s HTTP server: 127.0.0.1 only, one random token per start (in the printed URL
// once, then an HttpOnly SameSite=Strict cookie), GET only. The remote is read once per
// interval while someone watches, and that one read goes to every viewer as server-sent events;
// a page loaded between reads gets the last one. A failed read keeps the last good view with
// a line saying what failed.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unlessSystemError } from '../core/best-effort.js';
import type { Clock } from '../core/deps.js';
import { sanitizeLine } from '../core/sanitize.js';
import type { Fleet } from './fleet.js';
import { Html } from './html.js';
import { fleetBody, pageHtml, readFailedBody, transcriptHtml, type LatestActions } from './page.js';

export interface ServeOptions {
  read: () => Promise<Fleet>;
  actions: (fleet: Fleet) => Promise<LatestActions>;
  /** A run's transcript as text; undefined when this clone keeps no logs of it. */
  transcript: (runId: string, item?: string) => Promise<string | undefined>;
  everyMs: number;
  port: number;
  clock: Clock;
}

export interface Served {
  url: string;
  port: number;
  /** Remote reads so far (one per interval at most, however many viewers). */
  reads(): number;
  close(): Promise<void>;
}

// A run id as lanes make them, and an item's short name: anything else in a transcript's path is a 404.
const RUN_ID = /^[0-9A-Za-z]{1,40}-[0-9a-f]{1,40}$/;
const ITEM = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;
// The stream's keep-alive, so proxies and the browser keep an idle stream open.
const KEEPALIVE_MS = 15_000;

export async function startServer(o: ServeOptions): Promise<Served> {
  const token = randomBytes(24).toString('base64url');
  const views = sharedView(o);
  const streams = new Set<ServerResponse>();
  let cookie = '';
  const server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      // best effort: a request whose answer failed (a transcript that cannot be read, a viewer
      // gone mid-answer) gets a 500; the server goes on serving every other request.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('abcd serve: internal error\n');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (answeredAtTheDoor(req, res, url, token, cookie)) return;
    if (url.pathname === '/') return page(res, views);
    if (url.pathname === '/events') return stream(req, res);
    const run = /^\/run\/([^/]+)$/.exec(url.pathname)?.[1];
    if (run !== undefined) return transcript(o, res, decodedOrEmpty(run), url.searchParams.get('item') ?? undefined);
    res.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
    res.end('abcd serve: no such page\n');
  }

  async function stream(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
    res.write('retry: 3000\n\n');
    streams.add(res);
    req.on('close', () => streams.delete(res));
    send(res, await views.fresh());
  }

  const send = (res: ServerResponse, body: string) => res.write(`event: fleet\ndata: ${JSON.stringify({ html: body })}\n\n`);
  const tick = setInterval(() => {
    if (streams.size === 0) return;
    void views.fresh().then((body) => {
      for (const s of streams) send(s, body);
    });
  }, o.everyMs);
  const keepalive = setInterval(() => {
    for (const s of streams) s.write(': keep-alive\n\n');
  }, KEEPALIVE_MS);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // Named by port: cookies do not tell ports apart, and two abcd serve on one computer must not share one.
  cookie = `abcd_serve_${port}`;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    reads: () => views.reads(),
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(tick);
        clearInterval(keepalive);
        for (const s of streams) s.end();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Answers a request without the token (401), other than a GET (405), or with the token in its
 * address (traded for the cookie); false: the request may go on to its page.
 */
function answeredAtTheDoor(req: IncomingMessage, res: ServerResponse, url: URL, token: string, cookie: string): boolean {
  const given = url.searchParams.get('token');
  if (!sameToken(given, token) && !sameToken(cookieOf(req, cookie), token)) {
    res.writeHead(401, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
    res.end('abcd serve: open the link abcd serve printed (it carries the token this page needs).\n');
    return true;
  }
  if (req.method !== 'GET') {
    res.writeHead(405, { ...SECURITY_HEADERS, allow: 'GET', 'content-type': 'text/plain; charset=utf-8' });
    res.end('abcd serve is read-only: GET only.\n');
    return true;
  }
  if (given !== null) {
    // The token leaves the address bar (and the history) for a cookie only this page sends.
    url.searchParams.delete('token');
    res.writeHead(303, {
      ...SECURITY_HEADERS,
      'set-cookie': `${cookie}=${token}; HttpOnly; SameSite=Strict; Path=/`,
      location: url.pathname + url.search,
    });
    res.end();
    return true;
  }
  return false;
}

/**
 * The body as of the last read, read again when older than the interval: concurrent callers
 * share one read in flight, so viewers never multiply the remote's load.
 */
function sharedView(o: ServeOptions): { fresh(): Promise<string>; reads(): number } {
  let good: { fleet: Fleet; actions: LatestActions } | undefined;
  let body = '';
  let readAt = -Infinity;
  let inFlight: Promise<string> | undefined;
  let count = 0;
  const read = async (): Promise<string> => {
    count++;
    let error: string | undefined;
    try {
      const fleet = await o.read();
      // This clone's logs that cannot be read (gone, refused) only cost the latest actions; a bug is the read's failure.
      good = { fleet, actions: await o.actions(fleet).catch(unlessSystemError(new Map<string, string>())) };
    } catch (e) {
      const what = sanitizeLine(e instanceof Error ? e.message : String(e), 300);
      error = `The last read failed at ${new Date(o.clock.now()).toISOString().slice(11, 19)}Z: ${what}${good ? ' (showing the read before).' : ''}`;
    }
    readAt = o.clock.now();
    body = good ? fleetBody(good.fleet, good.actions, error).text : readFailedBody(error ?? '').text;
    return body;
  };
  return {
    fresh() {
      if (inFlight) return inFlight;
      if (o.clock.now() - readAt < o.everyMs) return Promise.resolve(body);
      inFlight = read().finally(() => (inFlight = undefined));
      return inFlight;
    },
    reads: () => count,
  };
}

// Nothing from outside, no framing, no referrer (the first address carries the token), no cache.
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function htmlHeaders(nonce: string): Record<string, string> {
  return {
    ...SECURITY_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  };
}

/** The fleet's page, from the read shared by every viewer. */
async function page(res: ServerResponse, views: ReturnType<typeof sharedView>): Promise<void> {
  const body = await views.fresh();
  const nonce = randomBytes(16).toString('base64');
  res.writeHead(200, htmlHeaders(nonce));
  res.end(pageHtml(new Html(body), nonce));
}

/** A run's transcript as this clone keeps it, or a 404 page saying where its logs are. */
async function transcript(o: ServeOptions, res: ServerResponse, runId: string, item?: string): Promise<void> {
  const nonce = randomBytes(16).toString('base64');
  const ok = RUN_ID.test(runId) && (item === undefined || ITEM.test(item));
  const text = ok ? await o.transcript(runId, item) : undefined;
  res.writeHead(text === undefined ? 404 : 200, htmlHeaders(nonce));
  const title = `run ${runId}${item ? ` · ${item}` : ''}`;
  res.end(
    transcriptHtml(
      title,
      text ?? 'This clone keeps no logs of that run: its logs stay on the computer that ran it (abcd logs there).',
      nonce,
    ),
  );
}

/** A path segment decoded; '' (no run) when it is not valid percent-encoding. */
function decodedOrEmpty(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return ''; // a single parse: the percent-encoding
  }
}

function cookieOf(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return null;
}

function sameToken(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
