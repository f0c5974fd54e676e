// The boundaries of a cycle's log, kept beside it in `<n>-<item>.log.marks` (one JSON line
// each, with the log's byte offset where it falls): each turn the agent is given (its first
// lines), each steer handed to it while it worked (the steers' ids), the land's checks, and
// the cycle's end with its outcome and usage. The log keeps what the runtime wrote; the
// transcript (transcript.ts) reads both. abcd writes the marks: the agent cannot forge one.
import { readFile } from 'node:fs/promises';
import { sanitizeLine } from '../../core/sanitize.js';
import { scrubSecrets } from '../../core/scrub.js';
import { STEER_ENVELOPE_FIRST_LINE } from '../../steering/envelope.js';
import type { CycleRecord } from '../../records/lane-result.js';
import type { AgentSession, RuntimeName, TurnKind } from '../runtimes/runtime.js';
import { unlessMissing } from '../../core/best-effort.js';

// A turn's text is shown by its first few lines; the log is not the place for the whole prompt.
const PROMPT_LINES = 3;
const MARK_LINE_CHARS = 200;

export interface LogMark {
  /** The log's size in bytes when the mark was made: what follows it belongs to it. */
  at: number;
  kind: 'turn' | 'steer' | 'checks' | 'checks-end' | 'end';
  runtime?: RuntimeName;
  turn?: TurnKind;
  /** A turn's first lines, and how many more it had. */
  lines?: string[];
  more?: number;
  /** The steers a turn or a live steer carried, by id. */
  steers?: string[];
  outcome?: string;
  reason?: string;
  tokens?: number;
  costUsd?: number;
  durationMs?: number;
}

export function marksFile(logPath: string): string {
  return `${logPath}.marks`;
}

/** The marks of a log, in the order written; a torn or foreign line is skipped. */
export async function readMarks(logPath: string): Promise<LogMark[]> {
  const text = await readFile(marksFile(logPath), 'utf8').catch(unlessMissing(''));
  const out: LogMark[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const m = JSON.parse(line) as LogMark;
      if (typeof m === 'object' && m !== null && Number.isSafeInteger(m.at) && typeof m.kind === 'string') out.push(m);
    } catch {
      // a single parse: a line cut by a crash; the marks before and after it still count
    }
  }
  return out;
}

/** The steer ids an envelope carries, from its label lines ("--- amendment 1/2: steer <id> by ..."). */
export function steerIds(envelope: string | undefined): string[] {
  if (!envelope?.includes(STEER_ENVELOPE_FIRST_LINE)) return [];
  return [...envelope.matchAll(/^--- (?:amendment|context) \d+\/\d+: steer (\S+)/gm)].map((m) => sanitizeLine(m[1]!, 100));
}

/** A turn's first lines that say something, as a mark keeps them. */
export function firstLines(text: string): { lines: string[]; more: number } {
  const all = text.split('\n').filter((l) => l.trim() !== '');
  // Scrubbed as the log is: the item's text may hold something shaped like a token.
  const lines = all.slice(0, PROMPT_LINES).map((l) => sanitizeLine(scrubSecrets(l), MARK_LINE_CHARS));
  return { lines, more: Math.max(0, all.length - PROMPT_LINES) };
}

/** The session, marking the log where each turn and each live steer begins. */
export function markedSession(session: AgentSession, mark: (m: Omit<LogMark, 'at'>) => void, runtime: RuntimeName): AgentSession {
  return {
    get live() {
      return session.live;
    },
    turn(text, o) {
      const steers = steerIds(o.envelope ?? (o.kind === 'steer' ? text : undefined));
      const shown = o.kind === 'steer' ? {} : firstLines(text);
      mark({ kind: 'turn', runtime, turn: o.kind, ...shown, ...(steers.length ? { steers } : {}) });
      return session.turn(text, o);
    },
    steer(envelope) {
      mark({ kind: 'steer', runtime, steers: steerIds(envelope) });
      return session.steer(envelope);
    },
    usage: () => session.usage(),
    budgetStop: () => session.budgetStop?.(),
    close: () => session.close(),
  };
}

/** The cycle's end as a mark: how it ended, why, how long it took, what its agent used. */
export function endMark(c: CycleRecord): Omit<LogMark, 'at'> {
  return {
    kind: 'end',
    outcome: c.outcome,
    ...(c.reason ? { reason: c.reason } : {}),
    durationMs: c.durationMs,
    ...(c.usage !== undefined ? { tokens: c.usage } : {}),
    ...(c.spend ? { costUsd: c.spend.costUsd } : {}),
  };
}
