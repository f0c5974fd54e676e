// What `codex exec --json` prints, read as it comes: one JSON event per line. The thread id
// (`thread.started`) is what a resume continues; `turn.completed.usage` is the thread's running
// total (a resumed thread's counts include the runs before it, measured with Codex 0.171), so
// the latest one is the cycle's usage, never a sum of them; commands and agent messages
// (`item.*`) are the lane's activity; errors and the last message make a readable tail. The
// stream is the agent's (hostile): a line that is not such an event is kept as text, never a crash.
import type { CycleUsage } from '../../../machine/budget/usage.js';
import type { AgentActivity } from '../runtime.js';

// How much of the readable log a turn keeps for its result.
const TAIL_CHARS = 2000;
// A line longer than this is not one event: it is cut, never buffered without end.
const MAX_LINE_CHARS = 1 << 20;
// How much of one command or message the tail and the live line show.
const SHOWN_CHARS = 300;

export interface CodexTotals {
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
}

export class CodexEvents {
  threadId?: string;
  /** The latest running total the stream reported. */
  totals?: CodexTotals;
  /** turn.completed events seen. */
  turns = 0;
  /** Why the last turn failed, when the stream said. */
  failure?: string;
  /** Called when a run's turn starts: Codex has taken the turn's text. */
  onTurnStarted?: () => void;
  private partial = '';
  private tail = '';

  constructor(private readonly onActivity?: (a: AgentActivity) => void) {}

  /** The readable log since the last call (one turn's), and a fresh one for the next. */
  takeTail(): string {
    const t = this.tail;
    this.tail = '';
    return t;
  }

  /** Takes a chunk of stdout; whole lines are read, the rest waits for its end. */
  feed(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop()!.slice(0, MAX_LINE_CHARS);
    for (const line of lines) this.line(line);
  }

  /** Reads what is left when the process is gone. */
  end(): void {
    if (this.partial) this.line(this.partial);
    this.partial = '';
  }

  /** Adds stderr text to the readable log (Codex's warnings and errors). */
  note(text: string): void {
    for (const l of text.split('\n')) {
      const t = l.trim();
      if (t && t !== 'Reading additional input from stdin...') this.keep(t);
    }
  }

  /** The cycle's usage so far: tokens by kind (input without its cached part), no cost (Codex reports none). */
  usage(model: string | undefined): CycleUsage {
    const t = this.totals ?? { input: 0, cached: 0, cacheWrite: 0, output: 0 };
    return {
      inputTokens: Math.max(0, t.input - t.cached),
      outputTokens: t.output,
      cacheReadTokens: t.cached,
      cacheWriteTokens: t.cacheWrite,
      costUsd: 0,
      turns: this.turns,
      ...(model ? { model } : {}),
      ...(this.threadId ? { sessionId: this.threadId } : {}),
    };
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    let e: Record<string, unknown>;
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an event');
      e = v as Record<string, unknown>;
    } catch {
      this.keep(line.slice(0, SHOWN_CHARS));
      return;
    }
    switch (e.type) {
      case 'thread.started':
        if (typeof e.thread_id === 'string' && /^[A-Za-z0-9-]{1,100}$/.test(e.thread_id)) this.threadId ??= e.thread_id;
        return;
      case 'turn.started':
        this.onTurnStarted?.();
        return;
      case 'turn.completed':
        this.turns++;
        this.totals = totalsOf(e.usage) ?? this.totals;
        return;
      case 'turn.failed':
        this.failure = messageOf(e.error) ?? 'the turn failed';
        this.keep(`turn failed: ${this.failure}`);
        return;
      case 'error':
        this.keep(`error: ${messageOf(e) ?? 'unknown'}`);
        return;
      case 'item.started':
      case 'item.completed':
        this.item(e.type, e.item);
    }
  }

  private item(type: string, item: unknown): void {
    if (typeof item !== 'object' || item === null) return;
    const i = item as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, SHOWN_CHARS) : '');
    if (i.type === 'command_execution') {
      const command = text(i.command);
      if (type === 'item.started') this.onActivity?.({ kind: 'tool', text: command });
      else this.keep(`$ ${command}${typeof i.exit_code === 'number' ? ` (exit ${i.exit_code})` : ''}`);
    } else if (i.type === 'agent_message' && type === 'item.completed') {
      this.onActivity?.({ kind: 'message', text: text(i.text) });
      this.keep(`agent: ${text(i.text)}`);
    } else if (i.type === 'error' && type === 'item.completed') {
      this.keep(`codex: ${text(i.message)}`);
    } else if (i.type === 'file_change' && type === 'item.completed') {
      this.onActivity?.({ kind: 'tool', text: 'file change' });
    }
  }

  private keep(line: string): void {
    this.tail = `${this.tail}${line}\n`.slice(-TAIL_CHARS);
  }
}

function totalsOf(u: unknown): CodexTotals | undefined {
  if (typeof u !== 'object' || u === null) return undefined;
  const o = u as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(Number.MAX_SAFE_INTEGER, Math.floor(v)) : 0);
  return {
    input: n(o.input_tokens),
    cached: n(o.cached_input_tokens),
    cacheWrite: n(o.cache_write_input_tokens),
    output: n(o.output_tokens),
  };
}

function messageOf(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const m = (v as { message?: unknown }).message;
  return typeof m === 'string' ? m.slice(0, SHOWN_CHARS) : undefined;
}
