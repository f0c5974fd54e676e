// The whole of what a cycle's agent printed, kept on this computer under the clone's git dir
// (`abcd/logs/<run-id>/`), where only the person reads it: the result record on the remote
// keeps a short, scrubbed tail. Written as it comes, so a killed lane leaves what it had.
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

// An agent looping on a print would otherwise fill the disk; this holds days of a chatty agent.
const MAX_LOG_BYTES = 64 * 1024 * 1024;

export interface CycleLog {
  readonly path: string;
  write(chunk: string): void;
  close(): Promise<void>;
}

/** The run's log folder in a clone. */
export function runLogDir(commonDir: string, runId: string): string {
  return join(commonDir, 'abcd', 'logs', runId);
}

/** Opens `<n>-<item>.log` for appending (a steered agent's later rounds go to the same file). */
export async function openCycleLog(o: { commonDir: string; runId: string; n: number; item: string }): Promise<CycleLog> {
  const dir = runLogDir(o.commonDir, o.runId);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${o.n}-${o.item.replace(/[^A-Za-z0-9._-]/g, '-')}.log`);
  const out: WriteStream = createWriteStream(path, { flags: 'a', mode: 0o600 });
  let written = 0;
  let broken = false;
  // A full disk or a removed folder costs the log, never the cycle.
  out.on('error', () => (broken = true));
  return {
    path,
    write(chunk) {
      if (broken || written > MAX_LOG_BYTES) return;
      written += Buffer.byteLength(chunk);
      out.write(written > MAX_LOG_BYTES ? `\n[abcd: the log stops here, at ${MAX_LOG_BYTES} bytes; the agent printed more]\n` : chunk);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (broken || out.destroyed) return resolve();
        out.once('error', () => resolve());
        out.end(() => resolve());
      }),
  };
}
