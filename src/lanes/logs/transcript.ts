// A cycle's log as a person reads it: the log is what the runtime wrote (Claude Code's or
// Codex's JSON stream, a command's plain output) and the checks' output; its marks
// (log-marks.ts) say where each turn, steer, check run and the end fall. The transcript gives
// each boundary a marked line, each runtime event its readable lines (transcript-events.ts),
// and plain output as it is. Fed as bytes come, so `abcd logs --follow` renders live.
import { formatDuration } from '../../core/duration.js';
import type { LogMark } from './log-marks.js';
import { eventLines } from './transcript-events.js';

const TURN_TITLES: Record<string, string> = {
  task: 'prompt',
  steer: 'steer',
  conflict: 'turn: resolve the conflict with main',
  check: 'turn: fix the failing check',
};

export class Transcript {
  private partial = Buffer.alloc(0);
  /** Bytes of the log taken so far (the offset of the partial line's start). */
  private offset = 0;
  private shownMarks = 0;
  private inChecks = false;

  /** Takes the log's next bytes and its marks as known now; returns the lines completed. */
  push(bytes: Buffer, marks: readonly LogMark[]): string[] {
    const out: string[] = [];
    let buf = this.partial.length ? Buffer.concat([this.partial, bytes]) : bytes;
    let nl: number;
    while ((nl = buf.indexOf(0x0a)) >= 0) {
      out.push(...this.marksUpTo(this.offset, marks), ...this.line(buf.subarray(0, nl).toString('utf8')));
      this.offset += nl + 1;
      buf = buf.subarray(nl + 1);
    }
    this.partial = Buffer.from(buf);
    // Between lines: a boundary already reached is shown now, not when the next line comes.
    if (this.partial.length === 0) out.push(...this.marksUpTo(this.offset, marks));
    return out;
  }

  /** The log is whole: its unfinished last line and the marks after it. */
  end(marks: readonly LogMark[]): string[] {
    const rest = this.partial.length ? this.line(this.partial.toString('utf8')) : [];
    this.offset += this.partial.length;
    this.partial = Buffer.alloc(0);
    return [...this.marksUpTo(this.offset, marks), ...rest, ...this.marksUpTo(Infinity, marks)];
  }

  private marksUpTo(at: number, marks: readonly LogMark[]): string[] {
    const out: string[] = [];
    while (this.shownMarks < marks.length && marks[this.shownMarks]!.at <= at) out.push(...this.mark(marks[this.shownMarks++]!));
    return out;
  }

  private mark(m: LogMark): string[] {
    if (m.kind === 'checks') {
      this.inChecks = true;
      return ['── checks ──'];
    }
    this.inChecks = false;
    if (m.kind === 'checks-end') return [];
    const steers = m.steers?.length ? ` ${m.steers.join(', ')}` : '';
    if (m.kind === 'steer') return [`── steer${steers} (handed to the agent while it worked) ──`];
    if (m.kind === 'end') return [`── ${endLine(m)} ──`];
    const title = TURN_TITLES[m.turn ?? 'task'] ?? `turn: ${m.turn}`;
    const by = m.runtime ? ` (${m.runtime})` : '';
    return [`── ${title}${steers}${by} ──`, ...(m.lines ?? []).map((l) => `> ${l}`), ...(m.more ? [`> … ${m.more} more line(s)`] : [])];
  }

  private line(text: string): string[] {
    const line = text.replace(/\r$/, '');
    // The checks' output is theirs, shown as it is even when it looks like an event.
    if (this.inChecks) return [line];
    return eventLines(line) ?? [line];
  }
}

/** "result: landed in 1m02s, 1234 tokens, $0.0400" */
function endLine(m: LogMark): string {
  const parts = [
    m.durationMs !== undefined ? `in ${formatDuration(m.durationMs)}` : '',
    m.tokens !== undefined ? `${m.tokens} tokens` : '',
    m.costUsd ? `$${m.costUsd.toFixed(4)}` : '',
  ].filter(Boolean);
  const why = m.outcome !== 'landed' && m.reason ? `: ${m.reason}` : '';
  return `result: ${m.outcome ?? 'ended'}${parts.length ? ` ${parts.join(', ')}` : ''}${why}`;
}

/** A whole log with its marks, as transcript lines. */
export function renderTranscript(log: Buffer, marks: readonly LogMark[]): string[] {
  const t = new Transcript();
  return [...t.push(log, marks), ...t.end(marks)];
}
