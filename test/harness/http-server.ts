// Starts test/harness/http-git-server.mjs as a child process and talks to it.
// A separate process, not an in-process server: a synchronous git call in the test would block it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const serverScript = fileURLToPath(new URL('./http-git-server.mjs', import.meta.url));
// A server that has not listened by then is broken, not slow (it normally takes ~100 ms).
const startDeadlineMs = 10_000;
// Enough of the server's stderr (http-backend's complaints) to explain a failure.
const keptStderrChars = 64 * 1024;

export interface HttpGitServerOptions {
  /** Directory holding the bare repositories; `url('x.git')` serves `<root>/x.git`. */
  root: string;
  auth?: { user: string; password: string };
  /**
   * Delay every POST .../git-receive-pack by this many ms before it reaches git. A push larger
   * than http.postBuffer makes two such POSTs (a probe, then the body), so it is held twice.
   */
  holdReceivePackMs?: number;
  /** `all`: take every connection and never answer; `rpc`: answer ref advertisements, never a POST. */
  stall?: StallMode;
  /** SIGKILL the server this many ms after it received a whole receive-pack body (http-backend runs on). */
  dieAfterReceivePackMs?: number;
  /** Listen here (default 127.0.0.1, a free port): a network namespace's address, or a port to reuse. */
  host?: string;
  port?: number;
  /**
   * Run git http-backend as this uid/gid (root only): a server process that cannot write the
   * repository it serves, which root itself could always write.
   */
  backendUser?: { uid: number; gid: number };
  /** Run the server inside this network namespace (`ip netns exec`; root only). */
  netns?: string;
}

export type StallMode = 'all' | 'rpc' | 'none';

/** One line of the server's request log; the password is never recorded. */
export interface HttpGitRequest {
  at: number;
  method: string;
  path: string;
  query: string;
  authPresent: boolean;
  user: string | null;
  authorized: boolean;
  gitProtocol: string | null;
  contentEncoding: string | null;
  chunked: boolean;
  holdMs: number;
}

export interface HttpGitServer {
  port: number;
  /** `http://127.0.0.1:PORT/<repoName>`, without credentials. */
  url(repoName: string): string;
  /** Requests so far, in arrival order; a request is logged as soon as it arrives. */
  requests(): Promise<HttpGitRequest[]>;
  /** Change the receive-pack hold for requests that arrive from now on (0 opens it). */
  holdReceivePack(ms: number): Promise<void>;
  /** Change the stall mode for requests that arrive from now on. */
  stall(mode: StallMode): Promise<void>;
  /** Resolves when the server process has exited (stopped, or died on purpose). */
  exited: Promise<void>;
  /** What git http-backend and the server wrote to stderr so far (the tail). */
  stderr(): string;
  stop(): Promise<void>;
}

export async function startHttpGitServer(options: HttpGitServerOptions): Promise<HttpGitServer> {
  const workDir = await mkdtemp(join(tmpdir(), 'abcd-http-git-'));
  const logFile = join(workDir, 'requests.jsonl');
  const holdFile = join(workDir, 'hold-ms');
  const stallFile = join(workDir, 'stall');
  await writeFile(holdFile, String(options.holdReceivePackMs ?? 0));
  await writeFile(stallFile, options.stall ?? 'none');

  const args = [serverScript, '--root', options.root, '--log', logFile, '--hold-file', holdFile, '--stall-file', stallFile];
  if (options.dieAfterReceivePackMs !== undefined) args.push('--die-after-receive-pack-ms', String(options.dieAfterReceivePackMs));
  if (options.host !== undefined) args.push('--host', options.host);
  if (options.port !== undefined) args.push('--port', String(options.port));
  if (options.backendUser) args.push('--backend-uid', String(options.backendUser.uid), '--backend-gid', String(options.backendUser.gid));
  if (options.auth) {
    // A file, not argv or environment: tests look for leaked secrets in every process's cmdline and environ.
    const authFile = join(workDir, 'auth');
    await writeFile(authFile, `${options.auth.user}:${options.auth.password}`, { mode: 0o600 });
    args.push('--auth-file', authFile);
  }
  // http-backend reads no system or user config: only the served repositories' own.
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: workDir };
  delete env.ABCD_TEST_HTTP_AUTH;
  delete env.ABCD_TEST_HOLD_RECEIVE_PACK_MS;

  const [command, argv] = options.netns ? ['ip', ['netns', 'exec', options.netns, process.execPath, ...args]] : [process.execPath, args];
  // `ip netns exec` execs node in place: the child's pid is the server's.
  const child = spawn(command, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-keptStderrChars);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let port: number;
  try {
    port = await waitForPort(child, () => stderr);
  } catch (error) {
    await killAndWait(child, exited);
    await rm(workDir, { recursive: true, force: true });
    throw error;
  }

  let stopping: Promise<void> | undefined;
  return {
    port,
    url: (repoName) => `http://${options.host ?? '127.0.0.1'}:${port}/${repoName.replace(/^\/+/, '')}`,
    requests: async () => {
      const text = await readFile(logFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return '';
        throw error;
      });
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as HttpGitRequest);
    },
    holdReceivePack: (ms) => writeFile(holdFile, String(ms)),
    stall: (mode) => writeFile(stallFile, mode),
    exited,
    stderr: () => stderr,
    stop: () => {
      stopping ??= killAndWait(child, exited).then(() => rm(workDir, { recursive: true, force: true }));
      return stopping;
    },
  };
}

function waitForPort(child: ChildProcess, stderr: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    const fail = (why: string): void => {
      cleanup();
      reject(new Error(`http-git-server ${why}; stdout: ${JSON.stringify(stdout)}; stderr: ${stderr()}`));
    };
    const timer = setTimeout(() => fail(`printed no port within ${startDeadlineMs} ms`), startDeadlineMs);
    const onExit = (code: number | null, signal: string | null): void => fail(`exited (code ${code}, signal ${signal}) before listening`);
    const onData = (chunk: Buffer): void => {
      stdout += chunk.toString('utf8');
      const newline = stdout.indexOf('\n');
      if (newline < 0) return;
      const port = parsePortLine(stdout.slice(0, newline));
      if (port === null) return fail('printed a first line that is not {"port":N}');
      cleanup();
      resolve(port);
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.stdout?.off('data', onData);
      child.stdout?.resume(); // keep draining: a full stdout pipe would stall the server
    };
    child.once('exit', onExit);
    child.stdout?.on('data', onData);
  });
}

function parsePortLine(line: string): number | null {
  try {
    const port = (JSON.parse(line) as { port?: unknown }).port;
    return typeof port === 'number' ? port : null;
  } catch {
    return null;
  }
}

async function killAndWait(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  // SIGTERM closes the server cleanly; SIGKILL only if that hangs.
  const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(force);
}
