// What `gemini -p ... -o stream-json` prints, read as it comes: one JSON event per line. `init`
// names the session (what `-r` resumes); `tool_use` and the assistant's `message` are the lane's
// activity; `result` ends a run with its `stats`, the tokens of that run alone (a resumed run
// counts only its own requests, measured with Gemini CLI 0.61), so the cycle's usage is their
// sum. Errors and the last message make a readable tail. The stream is the agent's (hostile): a
// line that is not such an event is kept as text, never a crash.
import { addUsage, emptyUsage, safeCount, type CycleUsage } from '../../../machine/budget/usage.js';
import type { AgentActivity } from '../runtime.js';

// How much of the readable log a turn keeps for its result.
const TAIL_CHARS = 2000;
// A line longer than this is not one event: it is cut, never buffered without end.
const MAX_LINE_CHARS = 1 << 20;
// How much of one command or message the tail and the live line show.
const SHOWN_CHARS = 300;
// A session id as the CLI writes it (a UUID); anything else is not resumed.
const SESSION_ID = /^[A-Za-z0-9-]{1,100}$/;

export class GeminiEvents {
  sessionId?: string;
  /** The model the CLI said it runs. */
  model?: string;
  /** Why the last run failed, when its result said. */
  failure?: string;
  /** Called when a run's first event comes: the CLI has taken the turn's text. */
  onStarted?: () => void;
  private sum: CycleUsage = emptyUsage();
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

  /** Adds stderr text to the readable log (the CLI's warnings and errors, not its stack traces). */
  note(text: string): void {
    for (const l of text.split('\n')) {
      const t = l.trim();
      if (t && !t.startsWith('at ') && !NOISE.some((n) => t.startsWith(n))) this.keep(t.slice(0, SHOWN_CHARS));
    }
  }

  /** The cycle's usage so far: every run's stats summed (input without its cached part), no cost (the CLI reports none). */
  usage(model: string | undefined): CycleUsage {
    const named = model ?? this.model;
    return { ...this.sum, ...(named ? { model: named } : {}), ...(this.sessionId ? { sessionId: this.sessionId } : {}) };
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
    const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, SHOWN_CHARS) : '');
    switch (e.type) {
      case 'init':
        if (typeof e.session_id === 'string' && SESSION_ID.test(e.session_id)) this.sessionId ??= e.session_id;
        if (typeof e.model === 'string' && e.model.length <= 200) this.model = e.model;
        this.onStarted?.();
        return;
      case 'tool_use': {
        const p = (typeof e.parameters === 'object' && e.parameters !== null ? e.parameters : {}) as Record<string, unknown>;
        const what = text(p.command) || text(p.file_path) || text(p.path) || text(e.tool_name);
        this.onActivity?.({ kind: 'tool', text: what });
        this.keep(`→ ${text(e.tool_name)} ${what}`.trimEnd());
        return;
      }
      case 'message':
        if (e.role !== 'assistant') return;
        this.onActivity?.({ kind: 'message', text: text(e.content) });
        this.keep(`agent: ${text(e.content)}`);
        return;
      case 'error':
        this.keep(`error: ${text(e.message) || 'unknown'}`);
        return;
      case 'result':
        this.result(e);
    }
  }

  private result(e: Record<string, unknown>): void {
    const stats = (typeof e.stats === 'object' && e.stats !== null ? e.stats : {}) as Record<string, unknown>;
    const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? safeCount(v) : 0);
    const input = n(stats.input_tokens);
    const cached = Math.min(input, n(stats.cached));
    this.sum = addUsage(this.sum, {
      inputTokens: input - cached,
      outputTokens: n(stats.output_tokens),
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
      costUsd: 0,
      turns: 1,
    });
    if (e.status !== 'success') {
      const err = (typeof e.error === 'object' && e.error !== null ? e.error : {}) as Record<string, unknown>;
      this.failure = typeof err.message === 'string' ? err.message.slice(0, SHOWN_CHARS) : 'the run failed';
      this.keep(`failed: ${this.failure}`);
    }
  }

  private keep(line: string): void {
    this.tail = `${this.tail}${line}\n`.slice(-TAIL_CHARS);
  }
}

// What the CLI prints on stderr on every run: no reason for anything.
const NOISE = ['Warning: 256-color support', 'YOLO mode is enabled', 'Ripgrep is not available', '[STARTUP]'];
