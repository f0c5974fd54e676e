// Who wrote a gate entry, and whether that process still runs. A pid alone is not an
// identity: pids wrap and are reused (iss-2610161634043273), so an entry names its writer by
// pid plus the kernel's start time of that process, and a pid that now belongs to a process
// started at another time is a different process: the entry's writer is dead.
import { readFileSync, readlinkSync } from 'node:fs';
import { unlessSystemError } from '../../core/best-effort.js';
import type { Clock } from '../../core/deps.js';

/** A process as gate entries name it. `start` is null where the system does not tell it. */
export interface ProcessId {
  pid: number;
  start: string | null;
}

/** What the gate needs from the machine; tests inject pids out of order and fake liveness. */
export interface GateDeps {
  clock: Clock;
  /** This process's pid. */
  pid: number;
  /** The start time of `pid`, or null when there is no such process or it cannot be told. */
  startTime(pid: number): string | null;
  /** Whether the process that wrote an entry still runs (same pid and same start time). */
  isAlive(id: ProcessId): boolean;
}

interface ProcStat {
  state: string;
  start: string;
}

/**
 * Reads /proc/<pid>/stat: field 3 (state) and field 22 (starttime, clock ticks since boot).
 * The command name (field 2) may hold spaces and parentheses, so fields are counted from the
 * last ')'. Returns null for no such process; undefined where /proc is not there (not Linux).
 */
function readProcStat(pid: number): ProcStat | null | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return procMounted() ? null : undefined;
    return undefined;
  }
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const start = fields[22 - 3];
  if (!state || !start || !/^\d+$/.test(start)) return undefined;
  return { state, start };
}

let procSeen: boolean | undefined;
function procMounted(): boolean {
  if (procSeen === undefined) {
    try {
      readFileSync('/proc/self/stat');
      procSeen = true;
    } catch (e) {
      // No /proc, or not one this process may read: the system cannot say.
      procSeen = unlessSystemError(false)(e);
    }
  }
  return procSeen;
}

export function readStartTime(pid: number): string | null {
  return readProcStat(pid)?.start ?? null;
}

/**
 * Fails safe toward "alive" only where the system cannot say: without /proc a pid that
 * exists counts as its writer. A zombie (killed, not yet reaped) is dead: it holds no work.
 */
export function isProcessAlive(id: ProcessId): boolean {
  if (!Number.isInteger(id.pid) || id.pid <= 0) return false;
  const stat = readProcStat(id.pid);
  if (stat === null) return false;
  if (stat !== undefined) {
    if (stat.state === 'Z' || stat.state === 'X') return false;
    return id.start === null || id.start === stat.start;
  }
  try {
    process.kill(id.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The real machine: this process's pid, /proc start times, real liveness. */
export function systemGateDeps(clock: Clock, pid: number): GateDeps {
  return { clock, pid, startTime: readStartTime, isAlive: isProcessAlive };
}

let pidSpace: string | null | undefined;
/**
 * The pid space this process lives in: the kernel's boot id and this process's pid namespace.
 * A pid (and its start time) names a process only within one such space: on another computer,
 * after a reboot or in another container the same number is someone else. Null without /proc.
 */
export function readPidSpace(): string | null {
  if (pidSpace === undefined) {
    try {
      const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      const ns = readlinkSync('/proc/self/ns/pid');
      pidSpace = /^[0-9a-f-]{36}$/.test(boot) && /^pid:\[\d+\]$/.test(ns) ? `${boot}/${ns}` : null;
    } catch (e) {
      // No /proc, or not one this process may read: no pid space to tell.
      pidSpace = unlessSystemError(null)(e);
    }
  }
  return pidSpace;
}

/**
 * Whether the process `id`, as a writer in pid space `space` named itself, is gone. Undefined
 * when this process cannot tell: the writer's pid space is not this one (another computer,
 * container or boot), or this one is unknown.
 */
export function processGoneIn(space: string, id: ProcessId): boolean | undefined {
  const here = readPidSpace();
  if (here === null || here !== space) return undefined;
  return !isProcessAlive(id);
}
