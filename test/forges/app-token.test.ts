// App token minting against a local HTTP server that answers the GitHub endpoints abcd calls
// and checks that every answer it was given was asked for (gh's httpmock Verify).
import { generateKeyPairSync, verify as verifySignature, type KeyObject } from 'node:crypto';
import { chmod, link, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runDeviceFlow } from '../../src/forges/github/credentials/app-device-flow.js';
import { createTokenSource } from '../../src/forges/github/credentials/token-source.js';
import { systemClock, type Clock, type Deps } from '../../src/core/deps.js';
import { DeadlineReached, ForgeRejected, RemoteUnavailable, UnsafeEnvironment, type Refusal } from '../../src/core/refusals.js';
import { setupApp } from '../../src/forges/github/credentials/setup-app.js';
import { envConfig } from '../../src/cli/env-config.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

// ---- a GitHub that answers only what it was told to -------------------------------------

interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Hold the answer this long (a slow GitHub, or one that never answers before the deadline). */
  delayMs?: number;
}
interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** The fake clock's time when the request arrived (device-flow tests). */
  at: number;
}
interface Stub {
  method: string;
  path: string;
  replies: Array<Reply | ((req: Seen) => Reply)>;
}

class GitHubStub {
  readonly seen: Seen[] = [];
  readonly unexpected: string[] = [];
  private stubs: Stub[] = [];
  private server!: Server;
  url = '';
  clock: Clock = systemClock;

  /** Answers the next requests to method+path with these replies, in order, once each. */
  on(method: string, path: string, ...replies: Stub['replies']): void {
    this.stubs.push({ method, path, replies: [...replies] });
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0] ?? '';
        const seen: Seen = { method: req.method ?? '', path, headers: req.headers, body: raw ? JSON.parse(raw) : {}, at: this.clock.now() };
        this.seen.push(seen);
        const stub = this.stubs.find((s) => s.method === seen.method && s.path === path && s.replies.length > 0);
        const next = stub?.replies.shift();
        if (!next) {
          this.unexpected.push(`${seen.method} ${path}`);
          res.writeHead(599, { 'content-type': 'application/json' }).end('{"message":"no stub"}');
          return;
        }
        const r = typeof next === 'function' ? next(seen) : next;
        const send = () => res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...r.headers }).end(JSON.stringify(r.body));
        if (r.delayMs) setTimeout(send, r.delayMs);
        else send();
      });
    });
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Every reply was asked for and nothing else was asked. */
  verify(): void {
    expect(this.unexpected, 'requests no stub answered').toEqual([]);
    const unused = this.stubs.filter((s) => s.replies.length > 0).map((s) => `${s.method} ${s.path} (${s.replies.length} left)`);
    expect(unused, 'stubs never used').toEqual([]);
  }

  requests(method: string, path: string): Seen[] {
    return this.seen.filter((s) => s.method === method && s.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }
}

// ---- fixtures ----------------------------------------------------------------------------

const APP_ID = 4242;
const CLIENT_ID = 'Iv23liTESTCLIENT';
const HOUR = 3_600_000;
let keys: { pem: string; publicKey: KeyObject };
let gh: GitHubStub;
let dir: string;
let env: Record<string, string>;

beforeAll(() => {
  // A throwaway key, in GitHub's own PKCS#1 format; never written anywhere but a temp dir.
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  keys = { pem: pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), publicKey: pair.publicKey };
});
beforeEach(async () => {
  gh = new GitHubStub();
  await gh.start();
  const home = await tempDir('apptoken');
  dir = join(home, 'config', 'abcd');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  env = { HOME: home, ABCD_CONFIG_DIR: dir, ABCD_GITHUB_API_URL: gh.url, ABCD_GITHUB_URL: gh.url };
});
afterEach(async () => {
  await gh.stop();
});
afterAll(cleanupTemp);

async function writeSetup(token: { token: string; expiresAt: number; refreshToken: string; login?: string }): Promise<void> {
  await writeFile(join(dir, 'app.json'), JSON.stringify({ v: 1, appId: APP_ID, clientId: CLIENT_ID }), { mode: 0o600 });
  await writeFile(join(dir, 'app-key.pem'), keys.pem, { mode: 0o600 });
  await writeFile(join(dir, 'user-token.json'), JSON.stringify({ v: 1, ...token }), { mode: 0o600 });
}

const expired = () => ({ token: 'ghu_OLD', expiresAt: Date.now() - 1000, refreshToken: 'ghr_OLD', login: 'octo' });
const refreshed = (n = 1): Reply => ({
  body: {
    access_token: `ghu_NEW${n}`,
    expires_in: 28_800,
    refresh_token: `ghr_NEW${n}`,
    refresh_token_expires_in: 15_811_200,
    token_type: 'bearer',
    scope: '',
  },
});
const user = (login = 'octo'): Reply => ({ body: { login, id: 1 } });

async function refusalOf(p: Promise<unknown>): Promise<Refusal> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e, 'expected a refusal').toBeDefined();
  return e as Refusal;
}

function fakeClock(start = 1_800_000_000_000): Clock & { advance(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    sleep: async (ms) => {
      t += Math.max(0, ms);
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

// ---- user-to-server tokens ---------------------------------------------------------------

describe('user-to-server token', () => {
  it('uses a fresh token from the file without calling GitHub', async () => {
    const expiresAt = Date.now() + 4 * HOUR;
    await writeSetup({ token: 'ghu_FRESH', expiresAt, refreshToken: 'ghr_X', login: 'octo' });
    const t = await createTokenSource({ config: envConfig(env), clock: systemClock }).get();
    expect(t).toEqual({ token: 'ghu_FRESH', expiresAt, kind: 'user', holder: 'octo' });
    gh.verify();
    expect(gh.seen).toEqual([]);
  });

  it('refreshes an expiring token with the refresh token, resolves the holder and rewrites the file atomically 0600', async () => {
    await writeSetup(expired());
    const file = join(dir, 'user-token.json');
    // A second name for the old file: rewritten in place, it would show the new content too.
    const oldName = join(dir, '..', 'old-token.json');
    await link(file, oldName);
    const before = await stat(file);
    gh.on('POST', '/login/oauth/access_token', refreshed());
    gh.on('GET', '/user', user('octo'));
    const t = await createTokenSource({ config: envConfig(env), clock: systemClock }).get();
    gh.verify();
    expect(t).toMatchObject({ token: 'ghu_NEW1', kind: 'user', holder: 'octo' });
    expect(t.expiresAt).toBeGreaterThan(Date.now() + 7 * HOUR);
    const [post] = gh.requests('POST', '/login/oauth/access_token');
    expect(post?.body).toMatchObject({ grant_type: 'refresh_token', refresh_token: 'ghr_OLD', client_id: CLIENT_ID });
    expect(gh.requests('GET', '/user')[0]?.headers.authorization).toBe('token ghu_NEW1');
    const after = await stat(file);
    expect(after.mode & 0o777).toBe(0o600);
    expect(after.ino, 'replaced by rename, not rewritten in place').not.toBe(before.ino);
    expect(JSON.parse(await readFile(oldName, 'utf8')).token, 'the old file was never written to').toBe('ghu_OLD');
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ token: 'ghu_NEW1', refreshToken: 'ghr_NEW1', login: 'octo' });
    expect((await readdir(dir)).sort()).toEqual(['app-key.pem', 'app.json', 'user-token.json']);
  });

  it('refreshes once when two token sources in one process need it at the same time', async () => {
    await writeSetup(expired());
    // Slow enough that the second source finds the lock taken and must wait, then re-read.
    gh.on('POST', '/login/oauth/access_token', { ...refreshed(), delayMs: 400 });
    gh.on('GET', '/user', user());
    const [a, b] = await Promise.all([
      createTokenSource({ config: envConfig(env), clock: systemClock }).get(),
      createTokenSource({ config: envConfig(env), clock: systemClock }).get(),
    ]);
    gh.verify();
    expect(gh.requests('POST', '/login/oauth/access_token')).toHaveLength(1);
    expect(a.token).toBe('ghu_NEW1');
    expect(b.token).toBe('ghu_NEW1');
  });

  it('re-reads the file when another process replaced the pair, and refreshes before the margin', async () => {
    const clock = fakeClock(Date.now());
    await writeSetup({ token: 'ghu_A', expiresAt: clock.now() + HOUR, refreshToken: 'ghr_A', login: 'octo' });
    const source = createTokenSource({ config: envConfig(env), clock });
    expect((await source.get()).token).toBe('ghu_A');
    await writeFile(
      join(dir, 'user-token.json'),
      JSON.stringify({ v: 1, token: 'ghu_B', expiresAt: clock.now() + HOUR, refreshToken: 'ghr_B', login: 'octo' }),
      { mode: 0o600 },
    );
    expect((await source.get()).token, 'another process refreshed: its token replaces the dead one').toBe('ghu_B');
    clock.advance(HOUR - 4 * 60_000); // inside the 5-minute margin
    gh.on('POST', '/login/oauth/access_token', refreshed(2));
    gh.on('GET', '/user', user());
    expect((await source.get()).token).toBe('ghu_NEW2');
    expect(gh.requests('POST', '/login/oauth/access_token')[0]?.body.refresh_token).toBe('ghr_B');
    gh.verify();
  });

  it('breaks the lock of a dead process, and refuses with exit 4 when a live one keeps it', async () => {
    await writeSetup(expired());
    const lock = join(dir, 'user-token.json.lock');
    const dead = await execa('node', ['-e', 'process.stdout.write(String(process.pid))']);
    await writeFile(lock, JSON.stringify({ pid: Number(dead.stdout), host: hostname(), nonce: 'x', at: Date.now() }), { mode: 0o600 });
    gh.on('POST', '/login/oauth/access_token', refreshed());
    gh.on('GET', '/user', user());
    expect((await createTokenSource({ config: envConfig(env), clock: systemClock }).get()).token).toBe('ghu_NEW1');
    gh.verify();

    await writeFile(join(dir, 'user-token.json'), JSON.stringify({ v: 1, ...expired() }), { mode: 0o600 });
    await writeFile(lock, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'y', at: Date.now() }), { mode: 0o600 });
    const r = await refusalOf(createTokenSource({ config: envConfig(env), clock: systemClock, lock: { waitMs: 300 } }).get());
    expect(r).toBeInstanceOf(DeadlineReached);
    expect(r.data).toMatchObject({ waitedOn: 'token-refresh-lock', path: lock });
    expect(r.message).toContain(`delete ${lock}`);
  });

  it('turns bad_refresh_token into the exit-7 refusal naming setup-app', async () => {
    await writeSetup(expired());
    gh.on('POST', '/login/oauth/access_token', {
      body: {
        error: 'bad_refresh_token',
        error_description: 'The refresh token passed is incorrect or expired.',
        error_uri: 'https://docs',
      },
    });
    const r = await refusalOf(createTokenSource({ config: envConfig(env), clock: systemClock }).get());
    gh.verify();
    expect(r).toBeInstanceOf(UnsafeEnvironment);
    expect(r.exit).toBe(7);
    expect(r.message).toContain('abcd setup-app');
    expect(r.data).toMatchObject({ oauthError: 'bad_refresh_token', fix: 'abcd setup-app' });
  });

  it('turns a 401 into exit 7, a 5xx into exit 8 (outcome unknown: the refresh may be spent) and a rate limit into exit 8', async () => {
    await writeSetup(expired());
    gh.on('POST', '/login/oauth/access_token', { status: 401, body: { message: 'Bad credentials' } });
    const r401 = await refusalOf(createTokenSource({ config: envConfig(env), clock: systemClock }).get());
    expect(r401).toBeInstanceOf(UnsafeEnvironment);
    expect(r401.message).toContain('expired or revoked');
    expect(r401.message).toContain('run "abcd setup-app"');

    gh.on('POST', '/login/oauth/access_token', { status: 502, body: { message: 'Bad gateway' } });
    const r502 = await refusalOf(createTokenSource({ config: envConfig(env), clock: systemClock }).get());
    expect(r502).toBeInstanceOf(RemoteUnavailable);
    // A refresh spends the refresh token: after a 502 from a gateway GitHub may have done it.
    expect(r502.data).toMatchObject({ status: 502, outcome: 'unknown' });

    gh.on('POST', '/login/oauth/access_token', refreshed());
    gh.on('GET', '/user', {
      status: 403,
      body: { message: 'API rate limit exceeded' },
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1900000000' },
    });
    const rRate = await refusalOf(createTokenSource({ config: envConfig(env), clock: systemClock }).get());
    expect(rRate).toBeInstanceOf(RemoteUnavailable);
    expect(rRate.exit).toBe(8);
    // The new pair was stored before the holder lookup failed: the spent one is gone for good.
    expect(JSON.parse(await readFile(join(dir, 'user-token.json'), 'utf8')).refreshToken).toBe('ghr_NEW1');
    gh.verify();
  });

  it('gives up on a GitHub that does not answer within the deadline: exit 8, outcome unknown', async () => {
    await writeSetup(expired());
    gh.on('POST', '/login/oauth/access_token', { ...refreshed(), delayMs: 8_000 });
    const started = Date.now();
    const r = await refusalOf(createTokenSource({ config: envConfig(env), clock: systemClock, httpTimeoutMs: 200 }).get());
    // Gave up long before the answer came, whatever the machine's load did to the 200 ms timer.
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(r).toBeInstanceOf(RemoteUnavailable);
    // The refresh may have reached GitHub and spent the refresh token: say so.
    expect(r.data).toMatchObject({ outcome: 'unknown' });
    gh.verify();
  });
});

// ---- files only their owner may touch ----------------------------------------------------

describe('config files', () => {
  it('refuses a key file others can read, naming the file and the fix', async () => {
    await writeSetup({ token: 'ghu_FRESH', expiresAt: Date.now() + 4 * HOUR, refreshToken: 'ghr_X', login: 'octo' });
    const key = join(dir, 'app-key.pem');
    await chmod(key, 0o644);
    const r = await refusalOf(createTokenSource({ config: envConfig(env), clock: systemClock }).get());
    expect(r).toBeInstanceOf(UnsafeEnvironment);
    expect(r.exit).toBe(7);
    expect(r.message).toContain(key);
    expect(r.message).toContain(`chmod 600 ${key}`);
    expect(r.data).toMatchObject({ path: key, mode: '644', fix: `chmod 600 ${key}` });
    expect(gh.seen).toEqual([]);
  });

  it('refuses a token file or a config directory open to others', async () => {
    await writeSetup({ token: 'ghu_FRESH', expiresAt: Date.now() + 4 * HOUR, refreshToken: 'ghr_X', login: 'octo' });
    const token = join(dir, 'user-token.json');
    await chmod(token, 0o640);
    expect((await refusalOf(createTokenSource({ config: envConfig(env), clock: systemClock }).get())).data).toMatchObject({
      fix: `chmod 600 ${token}`,
    });
    await chmod(token, 0o600);
    await chmod(dir, 0o755);
    expect((await refusalOf(createTokenSource({ config: envConfig(env), clock: systemClock }).get())).data).toMatchObject({
      fix: `chmod 700 ${dir}`,
    });
  });

  it('names a malformed config file and the shape it expects', async () => {
    await writeSetup({ token: 'ghu_FRESH', expiresAt: Date.now() + 4 * HOUR, refreshToken: 'ghr_X', login: 'octo' });
    const app = join(dir, 'app.json');
    await writeFile(app, '{"v": 1, "appId": "not-a-number"}', { mode: 0o600 });
    const r = await refusalOf(createTokenSource({ config: envConfig(env), clock: systemClock }).get());
    expect(r).toBeInstanceOf(UnsafeEnvironment);
    expect(r.message).toContain(`${app} is malformed`);
    expect(r.message).toContain('appId');
    expect(r.message).toContain('Expected for example');
  });

  it('says the App is not set up when there is no config at all', async () => {
    const r = await refusalOf(createTokenSource({ config: envConfig(env), clock: systemClock }).get());
    expect(r.exit).toBe(7);
    expect(r.message).toContain('run "abcd setup-app" once');
  });
});

// ---- installation tokens -----------------------------------------------------------------

function jwtOf(req: Seen): { iss: unknown; valid: boolean } {
  const [h, p, s] = String(req.headers.authorization)
    .replace(/^bearer /i, '')
    .split('.');
  const valid = verifySignature('RSA-SHA256', Buffer.from(`${h}.${p}`), keys.publicKey, Buffer.from(s ?? '', 'base64url'));
  return { iss: JSON.parse(Buffer.from(p ?? '', 'base64url').toString()).iss, valid };
}

describe('installation token', () => {
  const find = (seen: Seen): Reply => {
    const jwt = jwtOf(seen);
    return jwt.valid && jwt.iss === APP_ID ? { body: { id: 77, app_slug: 'abcd-test' } } : { status: 401, body: { message: 'bad jwt' } };
  };
  const minted = (n: number): Reply => ({
    status: 201,
    body: {
      token: `ghs_INST${n}`,
      expires_at: new Date(Date.now() + HOUR).toISOString(),
      permissions: { contents: 'write' },
      repository_selection: 'selected',
      repositories: [{ id: 9, name: 'r' }],
    },
  });

  it('is limited to the one repository and the lane permissions, cached, and re-minted before it lapses', async () => {
    await writeSetup(expired());
    const clock = fakeClock(Date.now());
    gh.on('GET', '/repos/o/r/installation', find, find);
    gh.on('POST', '/app/installations/77/access_tokens', minted(1), minted(2));
    const source = createTokenSource({ config: envConfig(env), clock, kind: 'installation', repository: { owner: 'o', repo: 'r' } });
    const t = await source.get();
    expect(t).toMatchObject({ token: 'ghs_INST1', kind: 'installation', holder: 'abcd-test[bot]' });
    expect(await source.get(), 'cached in memory').toEqual(t);
    const [mint] = gh.requests('POST', '/app/installations/77/access_tokens');
    expect(mint?.body).toEqual({ repositories: ['r'], permissions: { contents: 'write', pull_requests: 'write', metadata: 'read' } });
    expect(jwtOf(mint!).valid).toBe(true);
    clock.advance(HOUR - 4 * 60_000);
    expect((await source.get()).token).toBe('ghs_INST2');
    gh.verify();
  });

  it('a 404 for the installation is the same not-found refusal (exit 3) as a forge call, naming the installation', async () => {
    await writeSetup(expired());
    gh.on('GET', '/repos/o/r/installation', { status: 404, body: { message: 'Not Found' } });
    const r = await refusalOf(
      createTokenSource({ config: envConfig(env), clock: systemClock, kind: 'installation', repository: { owner: 'o', repo: 'r' } }).get(),
    );
    expect(r).toBeInstanceOf(ForgeRejected);
    expect(r.data).toMatchObject({ reason: 'not-found', status: 404 });
    expect(r.message).toContain('not installed on o/r');
    gh.verify();
  });
});

// ---- two real processes ------------------------------------------------------------------

describe('refresh across processes', () => {
  // The children run the credential modules as built in dist/ (npm run build), never a fresh compile.
  const built = resolve(import.meta.dirname, '../..');
  beforeAll(() => {
    const module = join(built, 'dist/forges/github/credentials/token-source.js');
    if (!existsSync(module)) throw new Error(`${module} is missing: run npm run build before the tests`);
  });

  it('two processes needing a refresh at once make exactly one refresh request', async () => {
    await writeSetup(expired());
    gh.on('POST', '/login/oauth/access_token', { ...refreshed(), delayMs: 1_000 });
    gh.on('GET', '/user', user());
    const script = `
      import { createTokenSource } from ${JSON.stringify(join(built, 'dist/forges/github/credentials/token-source.js'))};
      import { systemClock } from ${JSON.stringify(join(built, 'dist/core/deps.js'))};
      import { envConfig } from ${JSON.stringify(join(built, 'dist/cli/env-config.js'))};
      try { console.log(JSON.stringify(await createTokenSource({ config: envConfig(process.env), clock: systemClock }).get())); }
      catch (e) { console.log(JSON.stringify({ refusal: e.code, message: e.message })); process.exitCode = e.exit ?? 1; }`;
    const run = () =>
      execa('node', ['--input-type=module', '-e', script], {
        env: { ...env, PATH: process.env.PATH ?? '' },
        extendEnv: false,
        reject: false,
      });
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.exitCode, a.stdout + a.stderr).toBe(0);
    expect(b.exitCode, b.stdout + b.stderr).toBe(0);
    expect(JSON.parse(a.stdout).token).toBe('ghu_NEW1');
    expect(JSON.parse(b.stdout).token).toBe('ghu_NEW1');
    expect(gh.requests('POST', '/login/oauth/access_token')).toHaveLength(1);
    gh.verify();
  });
});

// ---- device flow and setup-app -----------------------------------------------------------

describe('device flow', () => {
  const code = (expiresIn: number, interval: number): Reply => ({
    body: { device_code: 'DEV123', user_code: 'ABCD-1234', verification_uri: `${gh.url}/login/device`, expires_in: expiresIn, interval },
  });
  const pending: Reply = { body: { error: 'authorization_pending' } };
  const granted: Reply = {
    body: {
      access_token: 'ghu_DEV',
      expires_in: 28_800,
      refresh_token: 'ghr_DEV',
      refresh_token_expires_in: 15_811_200,
      token_type: 'bearer',
    },
  };

  it('polls at the interval, slows down for good on slow_down, and returns the pair', async () => {
    const clock = fakeClock();
    gh.clock = clock;
    const start = clock.now();
    gh.on('POST', '/login/device/code', code(900, 5));
    gh.on('POST', '/login/oauth/access_token', pending, { body: { error: 'slow_down', interval: 10 } }, pending, granted);
    const shown: string[] = [];
    const pair = await runDeviceFlow({ webUrl: gh.url, clientId: CLIENT_ID, clock, onCode: (c) => shown.push(c.userCode) });
    expect(shown).toEqual(['ABCD-1234']);
    expect(pair).toMatchObject({ token: 'ghu_DEV', refreshToken: 'ghr_DEV' });
    const polls = gh.requests('POST', '/login/oauth/access_token');
    expect(polls.map((p) => (p.at - start) / 1000)).toEqual([5, 10, 20, 30]);
    expect(polls[0]?.body).toEqual({
      client_id: CLIENT_ID,
      device_code: 'DEV123',
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    });
    expect(gh.requests('POST', '/login/device/code')[0]?.body).toEqual({ client_id: CLIENT_ID });
    gh.verify();
  });

  it("stops at the code's own expiry with a deadline refusal and no poll past it", async () => {
    const clock = fakeClock();
    gh.clock = clock;
    gh.on('POST', '/login/device/code', code(12, 5));
    gh.on('POST', '/login/oauth/access_token', pending, pending);
    const r = await refusalOf(runDeviceFlow({ webUrl: gh.url, clientId: CLIENT_ID, clock, onCode: () => undefined }));
    expect(r).toBeInstanceOf(DeadlineReached);
    expect(r.exit).toBe(4);
    expect(r.message).toContain('ABCD-1234');
    expect(r.data).toMatchObject({ waitedOn: 'device-flow-authorization', deadlineMs: 12_000 });
    gh.verify();
  });

  it('ends on expired_token from GitHub the same way', async () => {
    const clock = fakeClock();
    gh.on('POST', '/login/device/code', code(900, 5));
    gh.on('POST', '/login/oauth/access_token', { body: { error: 'expired_token' } });
    expect(await refusalOf(runDeviceFlow({ webUrl: gh.url, clientId: CLIENT_ID, clock, onCode: () => undefined }))).toBeInstanceOf(
      DeadlineReached,
    );
    gh.verify();
  });

  function deps(clock: Clock): Deps {
    return {
      cwd: dir,
      env,
      config: envConfig(env),
      clock,
      remote: 'origin',
      out: { stdout: () => undefined, stderr: () => undefined, isTTY: false },
    };
  }

  it('setup-app without ids prints the steps only the person can take', async () => {
    const r = await setupApp(deps(fakeClock()), { onCode: () => undefined });
    expect(r.state).toBe('needs-registration');
    const text = r.personSteps.join('\n');
    for (const want of [
      'Enable Device Flow',
      'Expire user authorization tokens',
      'Contents: Read and write',
      'Pull requests: Read and write',
      'Workflows',
      'Metadata: Read-only',
    ]) {
      expect(text).toContain(want);
    }
    gh.verify();
  });

  it('setup-app saves the key and settings 0600, runs the device flow and stores the refresh token 0600', async () => {
    const clock = fakeClock();
    const downloaded = join(dir, '..', 'downloaded.pem');
    await writeFile(downloaded, keys.pem, { mode: 0o644 });
    gh.on('POST', '/login/device/code', code(900, 5));
    gh.on('POST', '/login/oauth/access_token', pending, granted);
    gh.on('GET', '/user', user('octo'));
    const r = await setupApp(deps(clock), { appId: String(APP_ID), clientId: CLIENT_ID, keyFile: downloaded, onCode: () => undefined });
    expect(r).toMatchObject({ state: 'authorized', login: 'octo', keySaved: true });
    for (const f of ['app.json', 'app-key.pem', 'user-token.json']) expect((await stat(join(dir, f))).mode & 0o777, f).toBe(0o600);
    expect(JSON.parse(await readFile(join(dir, 'app.json'), 'utf8'))).toEqual({
      v: 1,
      appId: APP_ID,
      clientId: CLIENT_ID,
      keyFile: 'app-key.pem',
    });
    expect(JSON.parse(await readFile(join(dir, 'user-token.json'), 'utf8'))).toMatchObject({
      token: 'ghu_DEV',
      refreshToken: 'ghr_DEV',
      login: 'octo',
    });
    expect(await readFile(join(dir, 'app-key.pem'), 'utf8')).toBe(keys.pem);
    gh.verify();
  });
});
