// A run's log folder holds its cycles' logs and `run.json`: which run, whose process writes it
// and whether it finished, so `abcd logs --follow` knows when to stop without asking the remote.
// Folders older than `lanes.logRetention` are swept when a run starts; a run still running here
// is never swept, however old.
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processGoneIn, readPidSpace, readStartTime } from '../../machine/gate/process.js';
import { logsRoot, runLogDir } from '../cycle/cycle-log.js';
import { unlessMissing, unlessSystemError } from '../../core/best-effort.js';

export const RUN_LOG_META = 'run.json';
// A run id as lane-run.ts makes it (a UTC timestamp and random hex): nothing else is swept.
const RUN_ID = /^[0-9A-Za-z]+-[0-9a-f]+$/;

export interface RunLogMeta {
  runId: string;
  verb: 'build' | 'drain';
  startedAt: number;
  state: 'running' | 'finished';
  /** How the run ended: ok, or the refusal code that stopped it. */
  end?: string;
  finishedAt?: number;
  /** The process writing the run, in its pid space (as the run's record names it). */
  process?: { space: string; pid: number; start: string | null };
}

/** Writes `run.json` for a starting run; the returned function marks it finished. Best effort. */
export async function startRunLog(
  commonDir: string,
  run: Pick<RunLogMeta, 'runId' | 'verb' | 'startedAt'>,
): Promise<(end: string, at: number) => Promise<void>> {
  const dir = runLogDir(commonDir, run.runId);
  const space = readPidSpace();
  const meta: RunLogMeta = {
    ...run,
    state: 'running',
    ...(space ? { process: { space, pid: process.pid, start: readStartTime(process.pid) } } : {}),
  };
  // A folder the disk refuses: the write below fails the same way, and costs the log only.
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch(unlessSystemError(undefined));
  await writeMeta(dir, meta);
  return (end, at) => writeMeta(dir, { ...meta, state: 'finished', end, finishedAt: at });
}

/** Replaced whole, so a reader never sees half of it. A failure costs the log, never the run. */
async function writeMeta(dir: string, meta: RunLogMeta): Promise<void> {
  const tmp = join(dir, `.${RUN_LOG_META}.${process.pid}`);
  try {
    await writeFile(tmp, JSON.stringify(meta) + '\n', { mode: 0o600 });
    await rename(tmp, join(dir, RUN_LOG_META));
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined); // cleanup: the half-written file may already be gone
    // A write the disk refuses (full, read-only, a folder that could not be made) costs the log; a bug is thrown on.
    unlessSystemError(undefined)(e);
  }
}

/** The run's `run.json`, or undefined when it is missing or unreadable (a run killed early). */
export async function readRunLogMeta(dir: string): Promise<RunLogMeta | undefined> {
  // Missing, or not a file that can be read: the same as a run killed before it wrote one.
  const text = await readFile(join(dir, RUN_LOG_META), 'utf8').catch(unlessSystemError(undefined));
  if (text === undefined) return undefined;
  let v: RunLogMeta;
  try {
    v = JSON.parse(text) as RunLogMeta;
  } catch {
    return undefined; // a single parse: a run.json cut short
  }
  return typeof v === 'object' && v !== null && (v.state === 'running' || v.state === 'finished') ? v : undefined;
}

/** Whether the run is still going: not finished, and its process not known gone (unknown: going). */
export function runStillGoing(meta: RunLogMeta | undefined): boolean {
  if (!meta || meta.state === 'finished') return false;
  if (!meta.process) return true;
  return processGoneIn(meta.process.space, meta.process) !== true;
}

/** The run ids that have a log folder in this clone, oldest first (ids start with their UTC start). */
export async function listRunLogs(commonDir: string): Promise<string[]> {
  const names = await readdir(logsRoot(commonDir)).catch(unlessMissing([] as string[]));
  return names.filter((n) => RUN_ID.test(n)).sort();
}

/** Removes the log folders last written more than `retentionMs` ago, but a running run's. Returns the run ids removed. */
export async function sweepOldRunLogs(commonDir: string, o: { retentionMs: number; now: number; keep: string }): Promise<string[]> {
  const removed: string[] = [];
  for (const runId of await listRunLogs(commonDir)) {
    if (runId === o.keep) continue;
    const dir = runLogDir(commonDir, runId);
    try {
      if (o.now - (await lastWritten(dir)) <= o.retentionMs) continue;
      const meta = await readRunLogMeta(dir);
      if (meta?.state === 'running' && runStillGoing(meta)) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(runId);
    } catch (e) {
      // A folder the disk will not read or remove now (a failed system call) is tried by the next run; a bug is thrown on.
      unlessSystemError(undefined)(e);
    }
  }
  return removed;
}

/** The newest modification time of the folder's files (the folder's own when it is empty). */
async function lastWritten(dir: string): Promise<number> {
  let newest = (await stat(dir)).mtimeMs;
  // A file removed while the folder is read counts for nothing.
  for (const f of await readdir(dir))
    newest = Math.max(newest, (await stat(join(dir, f)).catch(unlessSystemError(undefined)))?.mtimeMs ?? 0);
  return newest;
}
