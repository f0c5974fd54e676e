// Runs the agent command once, headless, and makes sure that whatever it started is gone
// when it returns: its own process group, killed whole at the timeout, on a stop, and after
// it exits; and its own pid namespace, which takes a `setsid` daemon with it: bubblewrap's
// (which dies with the lane, --die-with-parent), else unshare's. Where neither can be had, the
// processes carrying the cycle's marker in their environment are swept once it ends.
import { spawn } from 'node:child_process';
import { bwrapArgs, type Sandbox, type SandboxPlan } from '../machine/sandbox/bwrap.js';
import { pidNamespacePrefix, sweepByEnvironment } from '../machine/sandbox/pid-namespace.js';

export interface AgentRun {
  exitCode: number;
  timedOut: boolean;
  stopped: boolean;
  durationMs: number;
  /** The end of what the agent printed (stdout and stderr together). */
  outputTail: string;
}

// How much of the agent's output a result keeps.
const OUTPUT_TAIL_CHARS = 2000;
// After the agent exits, how long its pipes may stay open before abcd stops waiting for them.
const PIPE_DRAIN_MS = 1000;

export async function runAgent(o: {
  command: string;
  env: Record<string, string>;
  sandbox: Sandbox;
  plan: SandboxPlan;
  /** `NAME=value` only this cycle's processes carry in their environment: swept when no pid namespace could be had. */
  marker: string;
  timeoutMs: number;
  signal?: AbortSignal;
  now: () => number;
  /** Streams the agent's output as it comes (an attended build shows it). */
  onOutput?: (chunk: string) => void;
  /** Called as soon as the agent's process is gone (before its pipes are drained). */
  onExit?: () => void;
}): Promise<AgentRun> {
  const t0 = o.now();
  const worktree = o.plan.chdir;
  const unshare = o.sandbox === 'bwrap' ? undefined : await pidNamespacePrefix(o.env);
  const shell = ['/bin/sh', '-c', o.command];
  const argv = o.sandbox === 'bwrap' ? ['bwrap', ...bwrapArgs(o.plan), '--', ...shell] : unshare ? [...unshare, '--', ...shell] : shell;
  const [file, ...args] = argv as [string, ...string[]];
  const swept = o.sandbox === 'none' && !unshare;
  const run = await new Promise<AgentRun>((resolve) => {
    const child = spawn(file, args, { cwd: worktree, env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let tail = '';
    const keep = (d: Buffer) => {
      const s = d.toString();
      o.onOutput?.(s);
      tail = (tail + s).slice(-OUTPUT_TAIL_CHARS);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let fired: 'timeout' | 'stop' | undefined;
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const kill = (why: 'timeout' | 'stop') => {
      fired ??= why;
      killGroup();
    };
    const timer = setTimeout(() => kill('timeout'), Math.max(0, o.timeoutMs));
    const onStop = () => kill('stop');
    o.signal?.addEventListener('abort', onStop, { once: true });
    if (o.signal?.aborted) onStop();
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
        outputTail: tail,
      });
    };
    child.on('error', (e) => {
      tail += `\n${e.message}`;
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
  });
  if (swept) await sweepByEnvironment(o.marker);
  return run;
}
