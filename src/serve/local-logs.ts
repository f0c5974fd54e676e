// What the page takes from this clone's own run logs (src/lanes/run-log-read.ts): the latest
// line a running item's agent printed, and a run's transcript. Runs of other computers keep
// their logs there: the page says so. Both are functions the server is given, so a richer
// renderer (a transcript of tool calls and turns) replaces them without touching the server.
import { open } from 'node:fs/promises';
import { activityText } from '../lanes/logs/output-tail.js';
import type { AgentActivity } from '../lanes/run/progress.js';
import { RUNTIMES } from '../lanes/runtimes/index.js';
import { cycleHeading, cycleLogs, readRunLogs, type CycleLogFile } from '../lanes/logs/run-log-read.js';
import { listRunLogs } from '../lanes/logs/run-logs.js';
import type { Fleet } from './fleet.js';
import { unlessMissing } from '../core/best-effort.js';

/** Renders a run's cycle logs (of one item, when asked) as the text a person reads. */
export type TranscriptRenderer = (files: ReadonlyArray<CycleLogFile & { text: string; transcript?: string }>) => string;

/** The logs as `abcd logs --raw` prints them: each cycle under its heading, as the runtime wrote it. */
export const plainTranscript: TranscriptRenderer = (files) => files.map((f) => cycleHeading(f) + f.text).join('\n');

/** The logs as `abcd logs` prints them: each cycle's transcript (turns, tool calls, steers, checks, result). */
export const readableTranscript: TranscriptRenderer = (files) => files.map((f) => cycleHeading(f) + (f.transcript ?? f.text)).join('\n');

// How much of a log's end is read for its latest line.
const TAIL_BYTES = 8192;
const ACTION_CHARS = 160;

/** The latest printed line of each running item's cycle in this clone, keyed `${runId} ${item}`. */
export async function latestActions(commonDir: string, fleet: Fleet): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const local = new Set(await listRunLogs(commonDir));
  for (const lane of fleet.status.lanes) {
    if (lane.state !== 'running' || !local.has(lane.runId)) continue;
    for (const c of lane.current) {
      const file = (await cycleLogs(commonDir, lane.runId, c.item)).at(-1);
      const line = file ? await lastLine(file.file) : undefined;
      if (line) out.set(`${lane.runId} ${c.item}`, line);
    }
  }
  return out;
}

async function lastLine(file: string): Promise<string | undefined> {
  const h = await open(file, 'r').catch(unlessMissing(undefined));
  if (!h) return undefined;
  try {
    const { size } = await h.stat();
    const len = Math.min(size, TAIL_BYTES);
    const buf = Buffer.alloc(len);
    await h.read(buf, 0, len, size - len);
    const lines = buf.toString('utf8').split('\n');
    // A tail that starts inside a line starts at the next one.
    if (len < size) lines.shift();
    return latestActivity(lines);
  } finally {
    await h.close();
  }
}

/**
 * The newest thing the agent did, as its runtime's own stream reader sees it (a tool call with
 * its target, a message), for a runtime that prints a stream; else the last printed line. Each
 * reader ignores the lines it does not know, so none is asked which runtime wrote the log.
 */
export function latestActivity(lines: readonly string[]): string | undefined {
  // Whichever came last: a stream's activity or a plain line (abcd's own, a check's).
  let latest: AgentActivity | undefined;
  let plain: string | undefined;
  const seen = (a: AgentActivity) => {
    latest = a;
    plain = undefined;
  };
  const readers = Object.values(RUNTIMES).flatMap((r) => (r.activityReader ? [r.activityReader(seen)] : []));
  for (const line of lines) {
    if (line.trimStart().startsWith('{')) {
      for (const r of readers) r.line(line);
    } else if (line.trim()) {
      plain = line;
      latest = undefined;
    }
  }
  const last = latest as AgentActivity | undefined;
  const text = last ? `${last.kind === 'tool' ? '▸ ' : ''}${last.text}` : plain;
  return text ? activityText(text, ACTION_CHARS) || undefined : undefined;
}

/** The run's transcript, or undefined when this clone keeps no logs of it. */
export async function runTranscript(o: {
  commonDir: string;
  runId: string;
  item?: string;
  render: TranscriptRenderer;
}): Promise<string | undefined> {
  if (!(await listRunLogs(o.commonDir)).includes(o.runId)) return undefined;
  const files = await readRunLogs(o.commonDir, o.runId, o.item);
  return files.length ? o.render(files) : `run ${o.runId} has no cycle logs${o.item ? ` of ${o.item}` : ''} in this clone.`;
}
