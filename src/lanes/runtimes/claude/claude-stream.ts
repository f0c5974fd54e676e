// Reads what Claude Code prints with `--output-format stream-json --verbose
// --replay-user-messages`: one JSON message per line. `system/init` names the session and
// model; `assistant` carries tool calls and text; `user` with `isReplay` echoes a message abcd
// wrote on stdin at the moment the CLI took it (its `uuid` is the one abcd gave); `result` ends
// one of the CLI's turns with that turn's `usage`, `num_turns` and `total_cost_usd`, a running
// total over the process. The output is the agent's, so hostile: a line that is not such a
// message is kept as text and never breaks the count; numbers are whole, non-negative, capped.
import type { CycleUsage } from '../../../machine/budget/usage.js';
import type { AgentActivity } from '../runtime.js';

export interface StreamEvents {
  onActivity?: (a: AgentActivity) => void;
  /** A message abcd wrote was taken by the CLI (its replay arrived). */
  onTaken?: (uuid: string) => void;
  /** One of the CLI's turns ended (a `result` message). */
  onResult?: (r: { ok: boolean; text: string }) => void;
}

// How much readable text the stream keeps for a result's reason.
const TAIL_CHARS = 2000;
// One tool call's summary in the live line and the tail.
const TOOL_SUMMARY_CHARS = 200;

export class ClaudeStream {
  sessionId?: string;
  model?: string;
  /** Characters of readable text kept so far: a mark for tailSince. */
  written = 0;
  private partial = '';
  private tail = '';
  private readonly sums = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, turns: 0 };
  /** Cost of the processes that ended (each restarts its running total), plus the current one's. */
  private costBefore = 0;
  private costNow = 0;

  /** Set while the CLI is retrying the model API and has had no answer since: the retries and the last error. */
  retrying: { attempts: number; error: string } | undefined;

  constructor(private readonly events: StreamEvents = {}) {}

  /** Feeds a chunk of stdout; whole lines are read, a partial one waits for the rest. */
  push(chunk: string): void {
    this.partial += chunk;
    let i: number;
    while ((i = this.partial.indexOf('\n')) >= 0) {
      const line = this.partial.slice(0, i);
      this.partial = this.partial.slice(i + 1);
      this.line(line);
    }
  }

  /** A new process of the same session starts: its running cost total starts again. */
  restarted(): void {
    this.partial = '';
    this.costBefore += this.costNow;
    this.costNow = 0;
  }

  /** Text to keep in the readable tail that did not come from the stream (the CLI's own errors). */
  note(text: string): void {
    if (text.trim()) this.keep(text.trim());
  }

  /** The end of what the agent said and did, readable (no JSON). */
  readableTail(): string {
    return this.tail;
  }

  /** The readable text kept since `mark` (a turn's own), at most the tail's length. */
  tailSince(mark: number): string {
    const n = Math.min(this.written - mark, this.tail.length);
    // The separator before the turn's first line is the previous turn's.
    return n > 0 ? this.tail.slice(-n).replace(/^\n/, '') : '';
  }

  usage(): CycleUsage {
    return {
      ...this.sums,
      costUsd: this.costBefore + this.costNow,
      ...(this.model ? { model: this.model } : {}),
      ...(this.sessionId ? { sessionId: this.sessionId } : {}),
    };
  }

  private line(text: string): void {
    if (text.trim() === '') return;
    let m: unknown;
    try {
      m = JSON.parse(text);
    } catch {
      // a single parse: one line of the agent's stream, kept as text when it is no JSON
      return this.keep(text);
    }
    if (typeof m !== 'object' || m === null) return this.keep(text);
    const msg = m as Record<string, unknown>;
    if (typeof msg.session_id === 'string' && /^[A-Za-z0-9-]{1,100}$/.test(msg.session_id)) this.sessionId = msg.session_id;
    if (msg.type === 'system' && msg.subtype === 'init' && typeof msg.model === 'string') this.model = msg.model.slice(0, 200);
    else if (msg.type === 'assistant') this.assistant(msg.message);
    else if (msg.type === 'user' && msg.isReplay === true && typeof msg.uuid === 'string') this.events.onTaken?.(msg.uuid);
    else if (msg.type === 'result') this.result(msg);
    if (msg.type === 'system' && msg.subtype === 'api_retry') this.apiRetry(msg);
    else if (msg.type === 'assistant' || msg.type === 'result') this.retrying = undefined;
  }

  /** The model API's failures since it last answered: the CLI retries them itself, abcd shows them. */
  private apiRetry(msg: Record<string, unknown>): void {
    const attempt = whole(msg.attempt);
    const max = whole(msg.max_retries);
    const status = whole(msg.error_status);
    const error = typeof msg.error === 'string' && /^[a-z_]{1,40}$/.test(msg.error) ? msg.error : 'unknown';
    const delay = whole(msg.retry_delay_ms);
    const said = `${error}${status !== undefined ? ` (HTTP ${status})` : ' (no connection)'}`;
    this.retrying = { attempts: attempt ?? (this.retrying?.attempts ?? 0) + 1, error: said };
    const text = `model API retry ${attempt ?? '?'}/${max ?? '?'}: ${said}${delay !== undefined ? `, next in ${Math.round(delay / 1000)}s` : ''}`;
    this.keep(`[${text}]`);
    this.events.onActivity?.({ kind: 'message', text });
  }

  private assistant(message: unknown): void {
    const content = (message as { content?: unknown } | undefined)?.content;
    if (!Array.isArray(content)) return;
    for (const block of content as Array<Record<string, unknown>>) {
      if (block.type === 'text' && typeof block.text === 'string' && block.text.trim()) {
        this.keep(block.text.trim());
        this.events.onActivity?.({ kind: 'message', text: block.text.trim() });
      } else if (block.type === 'tool_use' && typeof block.name === 'string') {
        const what = `${block.name.slice(0, 100)}${summary(block.input)}`;
        this.keep(`[${what}]`);
        this.events.onActivity?.({ kind: 'tool', text: what });
      }
    }
  }

  private result(msg: Record<string, unknown>): void {
    const u = (msg.usage ?? {}) as Record<string, unknown>;
    const s = this.sums;
    s.inputTokens = add(s.inputTokens, u.input_tokens);
    s.outputTokens = add(s.outputTokens, u.output_tokens);
    s.cacheReadTokens = add(s.cacheReadTokens, u.cache_read_input_tokens);
    s.cacheWriteTokens = add(s.cacheWriteTokens, u.cache_creation_input_tokens);
    s.turns = add(s.turns, msg.num_turns);
    // A running total over the process: the last one says it all (never summed).
    const cost = msg.total_cost_usd;
    if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 && cost >= this.costNow) this.costNow = cost;
    const ok = msg.subtype === 'success' && msg.is_error !== true;
    const said = typeof msg.result === 'string' ? msg.result.trim() : '';
    const why = ok ? '' : ` (${typeof msg.subtype === 'string' && msg.subtype !== 'success' ? msg.subtype.slice(0, 60) : 'error'})`;
    this.keep(`result${why}: ${said || '(no text)'}`);
    const denied = Array.isArray(msg.permission_denials) ? msg.permission_denials.length : 0;
    if (denied > 0) this.keep(`(${denied} tool call(s) were refused: not in lanes.claude.allowedTools)`);
    this.events.onResult?.({ ok, text: said });
  }

  private keep(text: string): void {
    const add = `${this.written ? '\n' : ''}${text}`;
    this.written += add.length;
    this.tail = (this.tail + add).slice(-TAIL_CHARS);
  }
}

function whole(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

function add(sum: number, v: unknown): number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? Math.min(Number.MAX_SAFE_INTEGER, sum + v) : sum;
}

/** A tool call's target: the file it edits or the command it runs. */
function summary(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const i = input as Record<string, unknown>;
  const target = [i.file_path, i.command, i.path, i.pattern].find((v) => typeof v === 'string') as string | undefined;
  return target ? ` ${target.replace(/\s+/g, ' ').slice(0, TOOL_SUMMARY_CHARS)}` : '';
}
