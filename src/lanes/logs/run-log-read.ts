// `abcd logs <run-id>`: a run's cycle logs as this clone keeps them, read whole or followed as
// the run writes them. Local only: the logs never leave the computer, so nothing is fetched.
import { open, readdir } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { Deps } from '../../core/deps.js';
import { UsageError } from '../../core/refusals.js';
import { Git } from '../../git/git.js';
import { cycleLogName, runLogDir } from '../cycle/cycle-log.js';
import { listRunLogs, readRunLogMeta, runStillGoing, type RunLogMeta } from './run-logs.js';
import { readMarks } from './log-marks.js';
import { Transcript, renderTranscript } from './transcript.js';
import { unlessMissing } from '../../core/best-effort.js';

// The runs a refusal names: the newest, enough to pick from.
const KNOWN_SHOWN = 10;
// How often --follow looks for more output and whether the run ended.
const FOLLOW_POLL_MS = 250;

export interface CycleLogFile {
  cycle: number;
  item: string;
  file: string;
}

/** The clone's common git dir, where its runs' logs are. */
export async function logsCommonDir(deps: Deps): Promise<string> {
  const dir = await new Git(deps.cwd, deps.env).clone.commonDir();
  if (dir === undefined)
    throw new UsageError(`${deps.cwd} is not inside a git clone: run abcd logs in the clone the lane ran in.`, 'clone', { cwd: deps.cwd });
  return isAbsolute(dir) ? dir : resolve(deps.cwd, dir);
}

/** The newest run this clone keeps logs of (ids start with their UTC start), or a usage refusal when there is none. */
export async function latestRun(commonDir: string): Promise<string> {
  const runs = await listRunLogs(commonDir);
  if (runs.length) return runs[runs.length - 1]!;
  return resolveRun(commonDir, '');
}

/** The one run whose id is `given` or starts with it; a usage refusal naming the known runs otherwise. */
export async function resolveRun(commonDir: string, given: string): Promise<string> {
  const runs = await listRunLogs(commonDir);
  if (runs.includes(given)) return given;
  const matches = runs.filter((r) => r.startsWith(given));
  if (matches.length === 1) return matches[0]!;
  const known = (matches.length > 1 ? matches : runs).slice(-KNOWN_SHOWN).reverse();
  const reason = matches.length > 1 ? 'ambiguous' : 'unknown';
  const list = known.length ? `: ${known.join(', ')}` : '';
  throw new UsageError(
    reason === 'ambiguous'
      ? `"${given}" starts ${matches.length} run ids this clone keeps logs of${list}; give more of the id.`
      : runs.length
        ? `this clone keeps no logs of a run "${given}". The newest runs it has${list}.`
        : `this clone keeps no run logs at all: a build or drain run in this clone writes them (kept for lanes.logRetention, default 7d).`,
    'run',
    { run: given, reason, known },
  );
}

/** The run's cycle logs in the order the cycles started, those of `item` only when given (its short name). */
export async function cycleLogs(commonDir: string, runId: string, item?: string): Promise<CycleLogFile[]> {
  const dir = runLogDir(commonDir, runId);
  const files = (await readdir(dir).catch(unlessMissing([] as string[])))
    .map((f) => /^(\d+)-(.+)\.log$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ cycle: Number(m[1]), item: m[2]!, file: join(dir, m[0]) }))
    .sort((a, b) => a.cycle - b.cycle);
  return item === undefined ? files : files.filter((f) => cycleLogName(f.cycle, item) === `${f.cycle}-${f.item}.log`);
}

/** Each of the run's cycle logs (of `item` only, when given), read whole: as written, and as a transcript. */
export async function readRunLogs(
  commonDir: string,
  runId: string,
  item?: string,
): Promise<Array<CycleLogFile & { text: string; transcript: string }>> {
  const files = await cycleLogs(commonDir, runId, item);
  return Promise.all(
    files.map(async (f) => {
      const [bytes, marks] = await Promise.all([readFrom(f.file, 0), readMarks(f.file)]);
      return { ...f, text: bytes.toString(), transcript: renderTranscript(bytes, marks).join('\n') + '\n' };
    }),
  );
}

export function readRunMeta(commonDir: string, runId: string): Promise<RunLogMeta | undefined> {
  return readRunLogMeta(runLogDir(commonDir, runId));
}

/** running, finished, or lost (running by its run.json, its process gone); null: the run never said. */
export function runState(meta: RunLogMeta | undefined): 'running' | 'finished' | 'lost' | null {
  if (!meta) return null;
  if (meta.state === 'finished') return 'finished';
  return runStillGoing(meta) ? 'running' : 'lost';
}

/** The line printed above each cycle's log. */
export function cycleHeading(f: CycleLogFile): string {
  return `==> cycle ${f.cycle}: ${f.item} <==\n`;
}

/**
 * Prints the run's logs, then what they gain, until the run is over: its run.json says it
 * finished or its process is gone. Returns how the run ended (undefined: it did not say).
 */
export async function followRun(o: {
  commonDir: string;
  runId: string;
  item?: string;
  write: (text: string) => void;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Print what the runtime wrote, not the transcript. */
  raw?: boolean;
}): Promise<RunLogMeta | undefined> {
  const read = new Map<string, number>();
  const transcripts = new Map<string, Transcript>();
  let shown: string | undefined;
  const show = (f: CycleLogFile, text: string) => {
    if (text === '') return;
    if (shown !== f.file) o.write((shown === undefined ? '' : '\n') + cycleHeading(f));
    shown = f.file;
    o.write(text);
  };
  const drain = async (last: boolean) => {
    for (const f of await cycleLogs(o.commonDir, o.runId, o.item)) {
      const from = read.get(f.file) ?? 0;
      const bytes = await readFrom(f.file, from);
      read.set(f.file, from + bytes.length);
      if (o.raw) {
        show(f, bytes.toString());
        continue;
      }
      const marks = await readMarks(f.file);
      const t = transcripts.get(f.file) ?? new Transcript();
      transcripts.set(f.file, t);
      const lines = [...t.push(bytes, marks), ...(last ? t.end(marks) : [])];
      show(f, lines.map((l) => `${l}\n`).join(''));
    }
  };
  for (;;) {
    // Read before the look at run.json: output written just before it finished is not lost.
    const meta = await readRunMeta(o.commonDir, o.runId);
    const over = !runStillGoing(meta) || o.signal?.aborted === true;
    await drain(over);
    if (over) return meta;
    await o.sleep(FOLLOW_POLL_MS, o.signal);
  }
}

/** The file's bytes from `offset` on, up to a whole character (a cut one waits for the next read). */
async function readFrom(file: string, offset: number): Promise<Buffer> {
  const h = await open(file, 'r').catch(unlessMissing(undefined));
  if (!h) return Buffer.alloc(0);
  try {
    const { size } = await h.stat();
    if (size <= offset) return Buffer.alloc(0);
    const buf = Buffer.alloc(size - offset);
    const { bytesRead } = await h.read(buf, 0, buf.length, offset);
    return wholeCharacters(buf.subarray(0, bytesRead));
  } finally {
    await h.close();
  }
}

/** The buffer less a UTF-8 character cut at its end. */
function wholeCharacters(buf: Buffer): Buffer {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const b = buf[buf.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back for its lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? buf.subarray(0, buf.length - back) : buf;
  }
  return buf;
}
