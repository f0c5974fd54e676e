// What `gemini -p ... -o stream-json` prints, read as it comes: one JSON event per line. `init`
// names the session (what `-r` resumes); `tool_use` and the assistant's `message` are the lane's
// activity; `result` ends a run with its `stats`, the tokens of that run alone (a resumed run
// counts only its own requests, measured with Gemini CLI 0.61), so the cycle's usage is their
// sum. Errors and the last message make a readable tail. The stream is the agent's (hostile): a
// line that is not such an event is kept as text, never a crash.
import { addUsage, emptyUsage, safeCount, type CycleUsage } from '../../../machine/budget/usage.js';
import { JsonEvents, shown, SHOWN_CHARS } from '../json-events.js';
import type { AgentActivity } from '../runtime.js';

// A session id as the CLI writes it (a UUID); anything else is not resumed.
const SESSION_ID = /^[A-Za-z0-9-]{1,100}$/;

export class GeminiEvents extends JsonEvents {
  sessionId?: string;
  /** The model the CLI said it runs. */
  model?: string;
  /** Why the last run failed, when its result said. */
  failure?: string;
  /** Called when a run's first event comes: the CLI has taken the turn's text. */
  onStarted?: () => void;
  private sum: CycleUsage = emptyUsage();

  constructor(private readonly onActivity?: (a: AgentActivity) => void) {
    super();
  }

  /** The session a later run resumes. */
  get resumeId(): string | undefined {
    return this.sessionId;
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

  protected event(e: Record<string, unknown>): void {
    switch (e.type) {
      case 'init':
        if (typeof e.session_id === 'string' && SESSION_ID.test(e.session_id)) this.sessionId ??= e.session_id;
        if (typeof e.model === 'string' && e.model.length <= 200) this.model = e.model;
        this.onStarted?.();
        return;
      case 'tool_use': {
        const p = (typeof e.parameters === 'object' && e.parameters !== null ? e.parameters : {}) as Record<string, unknown>;
        const what = shown(p.command) || shown(p.file_path) || shown(p.path) || shown(e.tool_name);
        this.onActivity?.({ kind: 'tool', text: what });
        this.keep(`→ ${shown(e.tool_name)} ${what}`.trimEnd());
        return;
      }
      case 'message':
        if (e.role !== 'assistant') return;
        this.onActivity?.({ kind: 'message', text: shown(e.content) });
        this.keep(`agent: ${shown(e.content)}`);
        return;
      case 'error':
        this.keep(`error: ${shown(e.message) || 'unknown'}`);
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
}

// What the CLI prints on stderr on every run: no reason for anything.
const NOISE = ['Warning: 256-color support', 'YOLO mode is enabled', 'Ripgrep is not available', '[STARTUP]'];
