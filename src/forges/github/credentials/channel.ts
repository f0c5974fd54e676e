// abcd's credential channel (never an environment variable, argv or a file the agent can read): git gets a forge token for one
// invocation only. The abcd host process serves the token on a unix socket in a fresh 0700
// directory for the lifetime of that one git call; git's helper (`abcd credential`) fetches it
// from there. That directory is made in abcd's config folder, beside the App's key: the one
// place every sandbox hides already, whatever TMPDIR is (a temporary folder outside /tmp is in
// plain sight of a sandbox that shows the system read-only). The token stays in this process's memory: never in argv, an environment, a file
// or a log line, so the agent and its children cannot come across it.
//
// Why a socket and not an inherited fd: git does pass fd 3 down to the helper, but a pipe serves
// only the first `get`, and one git call may ask several times (a push to several push URLs).
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Env } from '../../../core/deps.js';
import { credentialConfigEnv, helperCommand, type HelperLauncher } from './channel-config.js';
import { CHANNEL_IO_TIMEOUT_MS, formatAttributes, isComplete, MAX_MESSAGE_BYTES, parseAttributes } from './channel-protocol.js';

export type { HelperLauncher } from './channel-config.js';

// The username GitHub expects alongside an App token.
export const DEFAULT_TOKEN_USERNAME = 'x-access-token';
// One git call asks a handful of times at most; more means something else is asking.
const MAX_ANSWERS_PER_CHANNEL = 16;
// sun_path holds 108 bytes on Linux, 104 on macOS: keep under both.
const MAX_SOCKET_PATH_BYTES = 100;

export interface CredentialChannelOptions {
  token: string;
  /** Sent with the token; default x-access-token. */
  username?: string;
  launcher: HelperLauncher;
  /** Answer only when git asks for this host (`host[:port]` as git names it); any host if unset. */
  host?: string;
  /** The environment git runs with: its own GIT_CONFIG_COUNT entries are kept ahead of ours. */
  baseEnv?: Env;
  /**
   * Where the socket's directory is made: abcd's config folder (Deps.config.configDir), which
   * holds the App's key and so is hidden from every sandbox, whatever TMPDIR is (ADR 0062).
   */
  dir: string;
  /** Holds each answer this long; tests use it to inspect the live helper process. */
  answerDelayMs?: number;
}

export interface CredentialChannel {
  /** Extra environment for the one git call (Git.run's `env`). Holds no secret. */
  readonly env: Record<string, string>;
  /** How many `get`s were answered with the token so far. */
  readonly answered: number;
  /** Stops serving and removes the socket and its directory. Safe to call twice. */
  close(): Promise<void>;
}

/** Opens a channel for one git invocation; close it when that git call has ended. */
export async function openCredentialChannel(o: CredentialChannelOptions): Promise<CredentialChannel> {
  const username = o.username ?? DEFAULT_TOKEN_USERNAME;
  // Checked before anything exists, so a bad token leaves nothing behind and is never echoed.
  formatAttributes([
    ['username', username],
    ['password', o.token],
  ]);
  if (o.token === '') throw new Error('the credential channel needs a non-empty token');

  // mkdtemp makes the directory 0700: only this uid (and root) can reach the socket inside.
  // Node cannot read a peer's credentials (SO_PEERCRED), so the directory is the uid check.
  const dir = await mkdtemp(join(o.dir, 'abcd-cred-'));
  const socketPath = join(dir, 's');
  let answered = 0;
  const open = new Set<Socket>();
  // Half-open: a helper that ends its side without a blank line still gets its answer.
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    serve(socket, o.answerDelayMs ?? 0, (request) => {
      if (answered >= MAX_ANSWERS_PER_CHANNEL) return null;
      if (o.host !== undefined && request.get('host') !== o.host) return null;
      answered += 1;
      return formatAttributes([
        ['username', username],
        ['password', o.token],
      ]);
    });
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      });
      await rm(dir, { recursive: true, force: true });
    })();
    return closing;
  };
  try {
    if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
      throw new Error(`the credential socket path ${socketPath} is too long for a unix socket; set ABCD_CONFIG_DIR to a shorter folder`);
    }
    await listen(server, socketPath);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    env: credentialConfigEnv(helperCommand(o.launcher, socketPath), o.baseEnv),
    get answered() {
      return answered;
    },
    close,
  };
}

/** Runs `fn` (typically `(env) => git.transport.push(remote, updates, { env, timeoutMs, atomic })`) with a channel open. */
export async function withCredential<T>(o: CredentialChannelOptions, fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const channel = await openCredentialChannel(o);
  try {
    return await fn(channel.env);
  } finally {
    await channel.close();
  }
}

/** Reads one request, writes the answer (or nothing), ends the connection. */
function serve(socket: Socket, delayMs: number, answer: (request: Map<string, string>) => string | null): void {
  let text = '';
  let done = false;
  const respond = (): void => {
    if (done) return;
    done = true;
    const reply = answer(parseAttributes(text)) ?? '';
    setTimeout(() => socket.end(reply), delayMs);
  };
  socket.setEncoding('utf8');
  socket.setTimeout(CHANNEL_IO_TIMEOUT_MS, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: string) => {
    text += chunk;
    if (text.length > MAX_MESSAGE_BYTES) return void socket.destroy();
    if (isComplete(text)) respond();
  });
  socket.on('end', respond);
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
