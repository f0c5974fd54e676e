// Starts an agent's process headless and makes sure that whatever it started is gone when
// it ends: its own process group, killed whole at the timeout, on a stop, and after it exits;
// and its own pid namespace, which takes a `setsid` daemon with it: bubblewrap's (which dies
// with the lane, --die-with-parent), else unshare's. Where neither can be had, the processes
// carrying the cycle's marker in their environment are swept once it ends. Runtimes build on
// it: the `command` runtime runs a shell command, Claude Code keeps its stdin open for turns.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { sandboxArgv, type Sandbox, type SandboxPlan } from '../../machine/sandbox/bwrap.js';
import { pidNamespacePrefix, sweepByEnvironment } from '../../machine/sandbox/pid-namespace.js';

export interface AgentRun {
  exitCode: number;
  timedOut: boolean;
  stopped: boolean;
  durationMs: number;
  /** The end of what the agent printed (stdout and stderr together). */
  outputTail: string;
}

/** A started agent process. */
export interface AgentProcess {
  /** Its stdin when one was asked for, else null (closed from the start). */
  readonly stdin: Writable | null;
  /** Settles once it is gone and its pipes are drained (or given up on). */
  readonly done: Promise<AgentRun>;
  /** Moves the timeout: the process is killed `ms` from now. */
  extend(ms: number): void;
}

export interface AgentProcessOptions {
  /** The program and its arguments (inside the sandbox). */
  argv: readonly string[];
  /** 'pipe' keeps stdin open for the runtime to write; 'ignore' closes it. */
  stdin?: 'pipe' | 'ignore';
  env: Record<string, string>;
  sandbox: Sandbox;
  plan: SandboxPlan;
  /** `NAME=value` only this cycle's processes carry in their environment: swept when no pid namespace could be had. */
  marker: string;
  timeoutMs: number;
  signal?: AbortSignal;
  now: () => number;
  /** Streams the agent's output as it comes (stdout and stderr). */
  onOutput?: (chunk: string) => void;
  /** Streams stdout alone (a runtime that reads the agent's messages from it). */
  onStdout?: (chunk: string) => void;
  /** Streams stderr alone (a runtime that keeps the agent's warnings apart from its messages). */
  onStderr?: (chunk: string) => void;
  /** Called as soon as the process is gone (before its pipes are drained). */
  onExit?: () => void;
}

// How much of the agent's output a result keeps.
const OUTPUT_TAIL_CHARS = 2000;
// After the agent exits, how long its pipes may stay open before abcd stops waiting for them.
const PIPE_DRAIN_MS = 1000;

/** Runs a shell command once, stdin closed: the `command` runtime's agent. */
export async function runAgent(o: Omit<AgentProcessOptions, 'argv' | 'stdin'> & { command: string }): Promise<AgentRun> {
  const p = await startAgent({ ...o, argv: ['/bin/sh', '-c', o.command], stdin: 'ignore' });
  return p.done;
}

export async function startAgent(o: AgentProcessOptions): Promise<AgentProcess> {
  const t0 = o.now();
  const { file, args, swept } = await launchLine(o);
  const child = spawn(file, args, { cwd: o.plan.chdir, env: o.env, stdio: [o.stdin ?? 'ignore', 'pipe', 'pipe'], detached: true });
  // A write to a stdin whose reader is gone is the runtime's to notice, never a crash.
  child.stdin?.on('error', () => undefined);
  const output = collectOutput(child, o);
  let fired: 'timeout' | 'stop' | undefined;
  const killGroup = () => killGroupOf(child);
  const kill = (why: 'timeout' | 'stop') => {
    fired ??= why;
    killGroup();
  };
  let timer = setTimeout(() => kill('timeout'), Math.max(0, o.timeoutMs));
  const onStop = () => kill('stop');
  o.signal?.addEventListener('abort', onStop, { once: true });
  if (o.signal?.aborted) onStop();
  const done = new Promise<AgentRun>((resolve) => {
    let settled = false;
    const finish = (code: number | null) => {
      if (settled) return;
      settled = true;
      o.onExit?.();
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onStop);
      // Whatever it left running in its group goes with it.
      killGroup();
      resolve({
        exitCode: fired === 'timeout' ? 124 : (code ?? 137),
        timedOut: fired === 'timeout',
        stopped: fired === 'stop',
        durationMs: o.now() - t0,
        outputTail: output.tail,
      });
    };
    child.on('error', (e) => {
      output.tail += `\n${e.message}`;
      finish(127);
    });
    child.on('exit', (code) => {
      o.onExit?.();
      // A grandchild that escaped the group may hold the pipes: do not wait on it forever.
      const drain = setTimeout(() => finish(code), PIPE_DRAIN_MS);
      child.on('close', () => {
        clearTimeout(drain);
        finish(code);
      });
    });
  }).then(async (run) => {
    if (swept) await sweepByEnvironment(o.marker);
    return run;
  });
  return {
    stdin: child.stdin,
    done,
    extend(ms: number) {
      clearTimeout(timer);
      timer = setTimeout(() => kill('timeout'), Math.max(0, ms));
    },
  };
}

/**
 * The command line that starts the agent: inside bubblewrap, else in a pid namespace of its own
 * when unshare can make one. `swept`: neither could be had, so its processes are swept by marker.
 */
async function launchLine(o: AgentProcessOptions): Promise<{ file: string; args: string[]; swept: boolean }> {
  const unshare = o.sandbox === 'bwrap' ? undefined : await pidNamespacePrefix(o.env);
  const argv = o.sandbox === 'bwrap' ? sandboxArgv(o.plan, o.argv) : unshare ? [...unshare, '--', ...o.argv] : [...o.argv];
  const [file, ...args] = argv as [string, ...string[]];
  return { file, args, swept: o.sandbox === 'none' && !unshare };
}

/** The agent's output to the hooks, and its last OUTPUT_TAIL_CHARS kept in `tail`. */
function collectOutput(child: ChildProcess, o: AgentProcessOptions): { tail: string } {
  const output = { tail: '' };
  const keep = (d: Buffer) => {
    const s = d.toString();
    o.onOutput?.(s);
    output.tail = (output.tail + s).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', (d: Buffer) => {
    keep(d);
    o.onStdout?.(d.toString());
  });
  child.stderr?.on('data', (d: Buffer) => {
    keep(d);
    o.onStderr?.(d.toString());
  });
  return output;
}

/** Kills the agent's whole process group; one already gone is fine. */
function killGroupOf(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // cleanup: the group may already be gone
  }
}
