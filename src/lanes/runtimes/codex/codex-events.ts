// What `codex exec --json` prints, read as it comes: one JSON event per line. The thread id
// (`thread.started`) is what a resume continues; `turn.completed.usage` is the thread's running
// total (a resumed thread's counts include the runs before it, measured with Codex 0.171), so
// the latest one is the cycle's usage, never a sum of them; commands and agent messages
// (`item.*`) are the lane's activity; errors and the last message make a readable tail. The
// stream is the agent's (hostile): a line that is not such an event is kept as text, never a crash.
import type { CycleUsage } from '../../../machine/budget/usage.js';
import { JsonEvents, shown, SHOWN_CHARS } from '../json-events.js';
import type { AgentActivity } from '../runtime.js';

export interface CodexTotals {
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
}

export class CodexEvents extends JsonEvents {
  threadId?: string;
  /** The latest running total the stream reported. */
  totals?: CodexTotals;
  /** turn.completed events seen. */
  turns = 0;
  /** Why the last turn failed, when the stream said. */
  failure?: string;
  /** Called when a run's turn starts: Codex has taken the turn's text. */
  onStarted?: () => void;

  constructor(private readonly onActivity?: (a: AgentActivity) => void) {
    super();
  }

  /** The thread a later turn resumes. */
  get resumeId(): string | undefined {
    return this.threadId;
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

  protected event(e: Record<string, unknown>): void {
    switch (e.type) {
      case 'thread.started':
        if (typeof e.thread_id === 'string' && /^[A-Za-z0-9-]{1,100}$/.test(e.thread_id)) this.threadId ??= e.thread_id;
        return;
      case 'turn.started':
        this.onStarted?.();
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
    if (i.type === 'command_execution') {
      const command = shown(i.command);
      if (type === 'item.started') this.onActivity?.({ kind: 'tool', text: command });
      else this.keep(`$ ${command}${typeof i.exit_code === 'number' ? ` (exit ${i.exit_code})` : ''}`);
    } else if (i.type === 'agent_message' && type === 'item.completed') {
      this.onActivity?.({ kind: 'message', text: shown(i.text) });
      this.keep(`agent: ${shown(i.text)}`);
    } else if (i.type === 'error' && type === 'item.completed') {
      this.keep(`codex: ${shown(i.message)}`);
    } else if (i.type === 'file_change' && type === 'item.completed') {
      this.onActivity?.({ kind: 'tool', text: 'file change' });
    }
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
