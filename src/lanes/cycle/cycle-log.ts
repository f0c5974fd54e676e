// The whole of what a cycle's agent and its land checks printed, kept on this computer under
// the clone's git dir (`abcd/logs/<run-id>/<n>-<item>.log`), where only the person reads it
// (`abcd logs`): the result record on the remote keeps a short tail. Scrubbed line by line
// before it is written, and written as it comes, so a killed lane leaves what it had.
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { lineScrubber } from '../logs/scrub-lines.js';
import { marksFile, type LogMark } from '../logs/log-marks.js';

// An agent looping on a print would otherwise fill the disk; this holds days of a chatty agent.
const MAX_LOG_BYTES = 64 * 1024 * 1024;

export interface CycleLog {
  readonly path: string;
  write(chunk: string): void;
  /** Notes where in the log a turn, a steer, the checks or the cycle's end begin (the transcript's boundaries). */
  mark(m: Omit<LogMark, 'at'>): void;
  close(): Promise<void>;
}

/** Where a clone keeps its runs' log folders. */
export function logsRoot(commonDir: string): string {
  return join(commonDir, 'abcd', 'logs');
}

/** The run's log folder in a clone. */
export function runLogDir(commonDir: string, runId: string): string {
  return join(logsRoot(commonDir), runId);
}

/** A cycle's log file name: its number first, so a listing sorts in the order the cycles started. */
export function cycleLogName(n: number, item: string): string {
  return `${n}-${item.replace(/[^A-Za-z0-9._-]/g, '-')}.log`;
}

/** Opens `<n>-<item>.log` for appending (a steered agent's later rounds go to the same file). */
export async function openCycleLog(o: { commonDir: string; runId: string; n: number; item: string }): Promise<CycleLog> {
  const dir = runLogDir(o.commonDir, o.runId);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, cycleLogName(o.n, o.item));
  const out: WriteStream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  // Beside the log, never in it: what the agent prints cannot pass for one of abcd's boundaries.
  const marks: WriteStream = createWriteStream(marksFile(path), { flags: 'a', mode: 0o600 });
  marks.on('error', () => undefined);
  const scrub = lineScrubber();
  // A steered agent's later rounds append: offsets count from what the file held already.
  let written = await stat(path).then(
    (st) => st.size,
    () => 0,
  );
  const start = written;
  let broken = false;
  // A full disk or a removed folder costs the log, never the cycle.
  out.on('error', () => (broken = true));
  const put = (text: string) => {
    if (broken || written - start > MAX_LOG_BYTES || text === '') return;
    written += Buffer.byteLength(text);
    out.write(written - start > MAX_LOG_BYTES ? `\n[abcd: the log stops here, at ${MAX_LOG_BYTES} bytes; more was printed]\n` : text);
  };
  return {
    path,
    write: (chunk) => put(scrub.push(chunk)),
    // At the end of the whole lines written so far: a line the scrubber still holds comes after it.
    mark: (m) => {
      if (!marks.destroyed) marks.write(JSON.stringify({ at: written, ...m }) + '\n');
    },
    close: () =>
      new Promise<void>((resolve) => {
        put(scrub.end());
        marks.end();
        if (broken || out.destroyed) return resolve();
        out.once('error', () => resolve());
        out.end(() => resolve());
      }),
  };
}
