// Runs one command under the load gate: wait for a slot, run, release. Used by `abcd gate`
// and by `abcd land` for its checks.
import { constants } from 'node:os';
import { unlessRefusalOrSystemError } from '../../core/best-effort.js';
import { definedEnv, type Env } from '../../core/deps.js';
import { UsageError } from '../../core/refusals.js';
import { spawnProcess } from '../../core/spawn.js';
import { type GateOptions, acquireGate, readGate } from './gate.js';

/** Set in the command's environment: `<ticket>@<gate dir>` of the slot it runs under. */
export const HELD_ENV = 'ABCD_GATE_HELD';

export interface RunGatedOptions extends Omit<GateOptions, 'label'> {
  argv: readonly string[];
  cwd: string;
  env: Env;
  /** `stderr` sends the command's stdout to our stderr, keeping stdout for one JSON answer. */
  stdout: 'inherit' | 'stderr';
  /** Told when the slot is taken, before the command starts (a live wait line is removed). */
  onSlot?: () => void;
  /**
   * Aborted when abcd is asked to stop. A SIGTERM (the abort's reason) is passed on to the
   * command, as `timeout` and npm do, and its exit status still passes through. A SIGINT is
   * not: a terminal's Ctrl-C reaches the command itself, and a second one often means "force".
   */
  signal?: AbortSignal;
}

export interface GatedRun {
  exitCode: number;
  signal: string | null;
  /** Null when the command ran under a slot its caller already held (a nested gate). */
  ticket: number | null;
  waitedMs: number;
  ranMs: number;
}

/**
 * A command started under a slot that runs `abcd gate` (or land's checks) again would wait
 * for a slot behind itself; with one slot it could only wait out its deadline. So a command
 * whose environment names a live holder of this same gate runs in that slot.
 */
function heldByCaller(o: RunGatedOptions): number | null {
  const m = /^(\d+)@(.+)$/.exec(o.env[HELD_ENV] ?? '');
  if (!m || m[2] !== o.dir) return null;
  const ticket = Number(m[1]);
  return readGate(o.dir, o.deps).holders.some((h) => h.ticket === ticket) ? ticket : null;
}

export async function runGated(o: RunGatedOptions): Promise<GatedRun> {
  const [cmd, ...args] = o.argv;
  if (!cmd) throw new UsageError('name the command to run after --, e.g. abcd gate -- npm test', 'argument');
  const label = o.argv.join(' ').slice(0, 200);
  if (heldByCaller(o) !== null) {
    const ran = await spawnCommand(o, cmd, args, o.env[HELD_ENV]!);
    return { ...ran, ticket: null, waitedMs: 0 };
  }
  const lease = await acquireGate({ ...o, label });
  o.onSlot?.();
  let attached: Promise<void> = Promise.resolve();
  try {
    const ran = await spawnCommand(o, cmd, args, `${lease.ticket}@${o.dir}`, (pid) => {
      const start = o.deps.startTime(pid);
      // Fails safe: a slot that cannot name the command (the lock stayed held, the disk refused
      // the write) stays held by this process alone. A bug is thrown on once the slot is given back.
      if (start !== null) attached = lease.attachChild({ pid, start }).catch(unlessRefusalOrSystemError(undefined));
    });
    return { ...ran, ticket: lease.ticket, waitedMs: lease.waitedMs };
  } finally {
    await attached.finally(() => lease.release());
  }
}

async function spawnCommand(
  o: RunGatedOptions,
  cmd: string,
  args: string[],
  held: string,
  onStart?: (pid: number) => void,
): Promise<Omit<GatedRun, 'ticket' | 'waitedMs'>> {
  const started = o.deps.clock.now();
  let forward: (() => void) | undefined;
  const onSpawn = (pid: number) => {
    onStart?.(pid);
    if (!o.signal) return;
    forward = () => {
      if (o.signal?.reason !== 'SIGTERM') return;
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // cleanup: the command may have exited already
      }
    };
    if (o.signal.aborted) forward();
    else o.signal.addEventListener('abort', forward, { once: true });
  };
  const r = await spawnProcess(cmd, args, {
    cwd: o.cwd,
    env: { ...definedEnv(o.env), [HELD_ENV]: held },
    stdin: 'inherit',
    stdout: o.stdout === 'stderr' ? 2 : 'inherit',
    stderr: 'inherit',
    onStart: onSpawn,
  }).finally(() => forward && o.signal?.removeEventListener('abort', forward));
  const e = r.startError;
  if (e && (e.code === 'ENOENT' || e.code === 'EACCES')) {
    throw new UsageError(`cannot run "${cmd}": ${e.code === 'ENOENT' ? 'no such command' : 'permission denied'}.`, 'command', {
      command: cmd,
    });
  }
  if (e) throw e;
  // A command killed by a signal exits like a shell reports it: 128 + the signal number.
  const exitCode = r.exitCode ?? 128 + signalNumber(r.signal);
  return { exitCode, signal: r.signal, ranMs: o.deps.clock.now() - started };
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return (signal && constants.signals[signal]) || 1;
}
