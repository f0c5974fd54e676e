// The one way abcd starts a process (git, gh, a land check, the command `abcd gate` runs):
// node's child_process, an exact environment (never the parent's by accident), output captured
// as bytes or passed through, and a bound that kills the whole process group at a timeout or
// an abort (bounded.ts). execa did the same for three of these callers at 30-60 ms of import
// per process; what abcd needs of it fits here (ADR 0029).
import { spawn, type StdioOptions } from 'node:child_process';
import { boundGroup } from './bounded.js';

/** Where a child's stdout or stderr goes: kept in memory, dropped, this process's own, or an fd. */
export type OutputTarget = 'capture' | 'ignore' | 'inherit' | number;

export interface SpawnOptions {
  cwd?: string;
  /** The child's whole environment: nothing is inherited that is not in it. */
  env: Record<string, string>;
  /** Written to stdin, which is then closed; without it stdin is `stdin` (default 'ignore'). */
  input?: string | Buffer;
  stdin?: 'ignore' | 'inherit';
  stdout?: OutputTarget;
  stderr?: OutputTarget;
  /** Extra file descriptors from fd 3 on. */
  extraFds?: ReadonlyArray<'pipe' | number>;
  /**
   * Its own process group (detached), so a timeout or an abort ends what it started too
   * (hooks, ssh, a check's test runner). Required for timeoutMs and signal.
   */
  group?: boolean;
  timeoutMs?: number;
  signal?: AbortSignal;
  onStart?: (pid: number) => void;
  /** Each chunk of stdout and stderr as it arrives (captured as well). */
  onOutput?: (chunk: Buffer) => void;
  /** Each chunk of stdout alone as it arrives (captured as well). */
  onStdout?: (chunk: Buffer) => void;
  /**
   * stdin is a pipe handed to `feed` once the child starts, to write as the conversation goes
   * and end when done (instead of `input`, written whole at once). Writes to a child that has
   * gone are dropped: its exit is the answer. `hold(false)` lets this process exit while the
   * child runs (its handles, pipes and timeout no longer count for node), `hold(true)` takes it
   * back: a long-lived child between its uses.
   */
  feed?: (stdin: { write: (chunk: string) => void; end: () => void; hold: (on: boolean) => void }) => void;
}

export interface SpawnResult {
  /** null when it was killed by a signal or never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  /** stdout and stderr as they arrived, interleaved (both captured). */
  all: Buffer;
  /** Why abcd killed its group, if it did. */
  fired?: 'timeout' | 'abort';
  /** It could not start: ENOENT (no such command), EACCES, ... */
  startError?: NodeJS.ErrnoException;
}

// No timeout asked for: a bound far away, so one code path serves both.
const NO_TIMEOUT_MS = 2 ** 31 - 1;

export function spawnProcess(cmd: string, args: readonly string[], o: SpawnOptions): Promise<SpawnResult> {
  const target = (t: OutputTarget | undefined) => (t === undefined || t === 'capture' ? 'pipe' : t);
  const stdin = o.input !== undefined || o.feed ? 'pipe' : (o.stdin ?? 'ignore');
  const stdio = [stdin, target(o.stdout), target(o.stderr), ...(o.extraFds ?? [])];
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const all: Buffer[] = [];
    let startError: NodeJS.ErrnoException | undefined;
    const child = spawn(cmd, [...args], { cwd: o.cwd, env: o.env, stdio: stdio as StdioOptions, detached: o.group ?? false });
    const bound = o.group ? boundGroup(child.pid, o.timeoutMs ?? NO_TIMEOUT_MS, o.signal) : undefined;
    child.stdout?.on('data', (c: Buffer) => (out.push(c), all.push(c), o.onOutput?.(c), o.onStdout?.(c)));
    child.stderr?.on('data', (c: Buffer) => (err.push(c), all.push(c), o.onOutput?.(c)));
    if (o.input !== undefined && child.stdin) {
      // A child that exits without reading its input is its own answer, not an EPIPE crash.
      child.stdin.on('error', () => undefined);
      child.stdin.end(o.input);
    } else if (o.feed && child.stdin) {
      const pipe = child.stdin;
      pipe.on('error', () => undefined);
      const hold = (on: boolean) => {
        // A pipe to a child is a socket, which node lets go of like the child itself.
        const pipes = [child.stdin, child.stdout, child.stderr] as unknown as ({ ref(): void; unref(): void } | null)[];
        for (const h of [child, ...pipes]) {
          if (on) h?.ref();
          else h?.unref();
        }
        bound?.hold(on);
      };
      o.feed({ write: (chunk) => void pipe.write(chunk), end: () => void pipe.end(), hold });
    }
    child.once('spawn', () => child.pid !== undefined && o.onStart?.(child.pid));
    child.once('error', (e: NodeJS.ErrnoException) => {
      startError = e;
    });
    child.once('close', (code, signal) => {
      bound?.done();
      resolve({
        exitCode: startError ? null : code,
        signal,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err),
        all: Buffer.concat(all),
        ...(bound?.fired ? { fired: bound.fired } : {}),
        ...(startError ? { startError } : {}),
      });
    });
  });
}
