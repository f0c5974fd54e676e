#!/usr/bin/env node
// A smart-HTTP git server for tests: `git http-backend` as CGI behind node:http on 127.0.0.1.
// It runs as its own process so a synchronous git call in the test process cannot block it.
//
//   node http-git-server.mjs --root DIR [--auth-file FILE] [--log FILE] [--hold-file FILE]
//                            [--stall-file FILE] [--die-after-receive-pack-ms N] [--host H] [--port P]
//
// --auth-file: a file holding `user:password`; every request must carry that Basic auth. A file,
//   not argv or environment, so a test scanning /proc/*/{cmdline,environ} for a secret finds none
//   here. ABCD_TEST_HTTP_AUTH=user:password does the same for manual runs.
// --hold-file: a file holding N; each POST .../git-receive-pack waits N ms before git sees it.
//   Re-read on every such POST, so a test can open or close the hold while the server runs.
//   ABCD_TEST_HOLD_RECEIVE_PACK_MS=N is the default when the file is missing or empty.
//   A push larger than http.postBuffer is held twice: git first POSTs a 4-byte probe.
// --stall-file: a file holding a stall mode, re-read on every request: `all` (accept every
//   request and never answer it: a server that took the TCP connection and went silent) or
//   `rpc` (answer the ref advertisement GETs, never answer a POST: a server that stalls
//   mid-fetch or mid-push). Empty or missing: answer normally.
// --die-after-receive-pack-ms N: SIGKILL this server N ms after it has received a whole
//   git-receive-pack request body, leaving git http-backend running on (it may still apply the
//   push). Models a server or proxy that dies while the client waits for the push's answer.
// --host, --port: where to listen (default 127.0.0.1 and a free port).
// --backend-uid, --backend-gid: run git http-backend as this user (the server must be root): a
//   server process that cannot write the repository it serves, even when the tests run as root.
// --log: one JSON line per request, appended synchronously on arrival, so when a test sees the
// line for a held push the push is in flight and its git processes are alive.
// Prints exactly one line `{"port":N}` on stdout once listening.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

/** @import { ChildProcess } from 'node:child_process' */
/** @import { IncomingMessage, ServerResponse, OutgoingHttpHeaders } from 'node:http' */

const { values: args } = parseArgs({
  options: {
    root: { type: 'string' },
    'auth-file': { type: 'string' },
    log: { type: 'string' },
    'hold-file': { type: 'string' },
    'stall-file': { type: 'string' },
    'die-after-receive-pack-ms': { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    'backend-uid': { type: 'string' },
    'backend-gid': { type: 'string' },
  },
});
if (!args.root) {
  process.stderr.write(
    'usage: http-git-server.mjs --root DIR [--auth-file FILE] [--log FILE] [--hold-file FILE] [--stall-file FILE] [--die-after-receive-pack-ms N] [--host H] [--port P]\n',
  );
  process.exit(2);
}
const auth = parseAuth(args['auth-file'] ? readFileSync(args['auth-file'], 'utf8').trim() : process.env.ABCD_TEST_HTTP_AUTH);
const REALM = 'abcd-test';

// The test process may run inside a repository or a hook: these would point the backend elsewhere.
const baseEnv = { ...process.env };
for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PROTOCOL', 'ABCD_TEST_HTTP_AUTH']) {
  delete baseEnv[name];
}

/** @type {Set<ChildProcess>} */
const backends = new Set();
/** @type {Set<NodeJS.Timeout>} */
const holds = new Set();
/** @type {Set<ServerResponse>} */
const stalled = new Set();
const backendUser =
  args['backend-uid'] === undefined ? {} : { uid: Number(args['backend-uid']), gid: Number(args['backend-gid'] ?? args['backend-uid']) };
if (args['backend-uid'] !== undefined) {
  // The repositories belong to another user: let the backend serve them anyway.
  Object.assign(baseEnv, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.directory', GIT_CONFIG_VALUE_0: '*' });
}
const dieAfterMs = args['die-after-receive-pack-ms'] === undefined ? undefined : Number(args['die-after-receive-pack-ms']);

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const presented = parseBasic(req.headers.authorization);
  const authorized = !auth || (presented !== null && presented.user === auth.user && presented.password === auth.password);
  const isReceivePack = req.method === 'POST' && url.pathname.endsWith('/git-receive-pack');
  const holdMs = isReceivePack && authorized ? readHoldMs() : 0;
  writeLog({
    at: Date.now(),
    method: req.method,
    path: url.pathname,
    query: url.search.slice(1),
    authPresent: presented !== null,
    user: presented?.user ?? null,
    authorized,
    gitProtocol: req.headers['git-protocol'] ?? null,
    contentEncoding: req.headers['content-encoding'] ?? null,
    chunked: /chunked/i.test(req.headers['transfer-encoding'] ?? ''),
    holdMs,
  });

  const stall = readStall();
  if (stall === 'all' || (stall === 'rpc' && req.method === 'POST')) {
    // Read the request and never answer: the client waits until it gives up.
    req.resume();
    stalled.add(res);
    res.on('close', () => stalled.delete(res));
    return;
  }
  if (isReceivePack && authorized && dieAfterMs !== undefined) {
    req.once('end', () => setTimeout(() => process.kill(process.pid, 'SIGKILL'), dieAfterMs));
  }

  if (!authorized) {
    req.resume(); // discard the body; git retries with credentials after the 401
    res.writeHead(401, { 'WWW-Authenticate': `Basic realm="${REALM}"`, 'Content-Type': 'text/plain' });
    res.end('authentication required\n');
    return;
  }
  if (holdMs <= 0) {
    runBackend(req, res, url, presented?.user ?? 'anonymous');
    return;
  }
  // The body stays unread during the hold: the client's git processes stay blocked mid-push.
  const timer = setTimeout(() => {
    holds.delete(timer);
    runBackend(req, res, url, presented?.user ?? 'anonymous');
  }, holdMs);
  holds.add(timer);
});

/**
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 * @param {URL} url
 * @param {string} user
 */
function runBackend(req, res, url, user) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {
    ...baseEnv,
    GIT_PROJECT_ROOT: args.root,
    GIT_HTTP_EXPORT_ALL: '1',
    // Without REMOTE_USER http-backend refuses receive-pack (http.receivepack defaults to it).
    REMOTE_USER: user,
    REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REQUEST_METHOD: req.method ?? 'GET',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
    // gzip-encoded bodies are decoded by http-backend itself, not here.
    HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
  };
  // Chunked bodies have no length: without CONTENT_LENGTH http-backend reads to EOF.
  if (req.headers['content-length'] !== undefined) env.CONTENT_LENGTH = req.headers['content-length'];
  if (req.headers['git-protocol'] !== undefined) env.GIT_PROTOCOL = String(req.headers['git-protocol']);

  // cwd: the served root, which the backend's user can read; the test's own folder may be one it
  // cannot (a clone in a 0700 folder, as root with the backend as nobody), and git then fails at start.
  const child = spawn('git', ['http-backend'], { env, cwd: args.root, stdio: ['pipe', 'pipe', 'pipe'], ...backendUser });
  backends.add(child);
  /** @type {Buffer[]} */
  const stderr = [];
  child.stderr.on('data', (/** @type {Buffer} */ chunk) => {
    stderr.push(chunk);
    process.stderr.write(chunk);
  });
  // A backend that answers without reading the whole body (403, 404) closes stdin early.
  child.stdin.on('error', () => {});
  req.pipe(child.stdin);
  // The client gave up: nobody will read the answer.
  res.on('close', () => {
    if (!res.writableFinished) child.kill('SIGTERM');
  });

  let head = Buffer.alloc(0);
  /** @param {Buffer} chunk */
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk]);
    const parsed = parseCgiHead(head);
    if (!parsed) return;
    child.stdout.off('data', onData);
    child.stdout.pause();
    res.writeHead(parsed.status, parsed.reason, parsed.headers);
    if (parsed.rest.length > 0) res.write(parsed.rest);
    child.stdout.pipe(res);
  };
  child.stdout.on('data', onData);
  child.on('error', (error) => failBackend(res, `cannot run git http-backend: ${error.message}\n`));
  child.on('close', (code) => {
    backends.delete(child);
    // Only when no header block ever arrived; otherwise the pipe has ended the response.
    if (!res.headersSent) {
      failBackend(res, `git http-backend exited ${code} without a response\n${Buffer.concat(stderr)}`);
    }
  });
}

/**
 * @param {ServerResponse} res
 * @param {string} message
 */
function failBackend(res, message) {
  if (res.headersSent) return void res.destroy();
  res.writeHead(502, { 'Content-Type': 'text/plain' });
  res.end(message);
}

// CGI output: header lines, a blank line, the body. http-backend ends lines with CRLF; accept LF too.
/** @param {Buffer} buffer */
function parseCgiHead(buffer) {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  // The first blank line ends the head, whichever line ending it has.
  /** @type {{ end: number, sepLength: number }[]} */
  const candidates = [];
  if (crlf >= 0) candidates.push({ end: crlf, sepLength: 4 });
  if (lf >= 0) candidates.push({ end: lf, sepLength: 2 });
  const first = candidates.sort((a, b) => a.end - b.end)[0];
  if (!first) return null;
  const { end, sepLength } = first;
  let status = 200;
  let reason = 'OK';
  /** @type {Record<string, string | string[]>} */
  const headers = {};
  for (const line of buffer.subarray(0, end).toString('latin1').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') {
      const match = /^(\d{3})\s*(.*)$/.exec(value);
      if (match) [status, reason] = [Number(match[1]), match[2] || 'Status'];
    } else {
      const seen = headers[name];
      headers[name] = seen === undefined ? value : [...[seen].flat(), value];
    }
  }
  return { status, reason, headers: /** @type {OutgoingHttpHeaders} */ (headers), rest: buffer.subarray(end + sepLength) };
}

/** @param {string | undefined} text */
function parseAuth(text) {
  if (!text) return null;
  const colon = text.indexOf(':');
  if (colon <= 0) throw new Error('the auth setting must be user:password');
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** @param {string | undefined} header */
function parseBasic(header) {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { user: decoded, password: '' };
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function readHoldMs() {
  if (args['hold-file']) {
    try {
      const text = readFileSync(args['hold-file'], 'utf8').trim();
      if (text !== '') return Number(text) || 0;
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT') throw error;
    }
  }
  return Number(process.env.ABCD_TEST_HOLD_RECEIVE_PACK_MS) || 0;
}

function readStall() {
  if (!args['stall-file']) return '';
  try {
    return readFileSync(args['stall-file'], 'utf8').trim();
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT') throw error;
    return '';
  }
}

/** @param {Record<string, unknown>} entry */
function writeLog(entry) {
  if (args.log) appendFileSync(args.log, `${JSON.stringify(entry)}\n`);
}

process.on('SIGTERM', () => {
  for (const timer of holds) clearTimeout(timer);
  for (const child of backends) child.kill('SIGTERM');
  for (const res of stalled) res.destroy();
  server.close(() => process.exit(0));
  server.closeAllConnections();
});

server.listen(Number(args.port ?? 0), args.host ?? '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error(`listening, yet not on a TCP port: ${address}`);
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
