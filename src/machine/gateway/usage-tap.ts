// What one model answer used, read from the API's own answer as it streams past the gateway:
// the Messages API's `message_start` and `message_delta` usage, the Responses API's
// `response.completed` usage, or a whole JSON body's `usage`. The answer is the model
// server's: its numbers are made safe (usage.ts), never trusted to be sane.
import { emptyUsage, safeCount, type CycleUsage } from '../budget/usage.js';

export type ModelApi = 'anthropic' | 'openai';

// An event longer than this is not a usage event: it is dropped unread, so a hostile or broken
// answer cannot make the gateway hold an unbounded line in memory.
const MAX_EVENT_CHARS = 256 * 1024;

/** Reads usage from an answer fed in chunks; `usage()` is what it said once it ended. */
export class UsageTap {
  private text = '';
  private skipping = false;
  private json = '';
  private readonly u: CycleUsage = emptyUsage();
  private seen = false;

  constructor(
    private readonly api: ModelApi,
    /** `text/event-stream` answers are read event by event; anything else as one JSON body. */
    private readonly streaming: boolean,
  ) {}

  push(chunk: Buffer): void {
    if (!this.streaming) {
      if (this.json.length + chunk.length <= MAX_EVENT_CHARS) this.json += chunk.toString('utf8');
      else this.skipping = true;
      return;
    }
    this.text += chunk.toString('utf8');
    for (;;) {
      const end = eventEnd(this.text);
      if (end < 0) break;
      const event = this.text.slice(0, end);
      this.text = this.text.slice(end + separatorLength(this.text, end));
      if (this.skipping) this.skipping = false;
      else this.read(event);
    }
    if (this.text.length > MAX_EVENT_CHARS) {
      // Too long to be a usage event: drop it up to its end.
      this.text = '';
      this.skipping = true;
    }
  }

  /** The answer's usage, or undefined when it named none (an error answer, a HEAD). */
  usage(): CycleUsage | undefined {
    if (!this.streaming && !this.skipping && this.json) this.readBody(this.json);
    return this.seen ? { ...this.u, turns: 1 } : undefined;
  }

  private read(event: string): void {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (!data || data === '[DONE]') return;
    let v: unknown;
    try {
      v = JSON.parse(data);
    } catch {
      return;
    }
    if (!isObject(v)) return;
    if (this.api === 'anthropic') {
      if (v.type === 'message_start' && isObject(v.message)) {
        this.fromAnthropic(v.message.usage, true);
        if (typeof v.message.model === 'string') this.u.model = v.message.model;
      } else if (v.type === 'message_delta') this.fromAnthropic(v.usage, false);
    } else if (v.type === 'response.completed' && isObject(v.response)) {
      this.fromOpenAi(v.response.usage);
      if (typeof v.response.model === 'string') this.u.model = v.response.model;
    }
  }

  private readBody(body: string): void {
    let v: unknown;
    try {
      v = JSON.parse(body);
    } catch {
      return;
    }
    if (!isObject(v)) return;
    if (this.api === 'anthropic') this.fromAnthropic(v.usage, true);
    else this.fromOpenAi(v.usage);
    if (typeof v.model === 'string') this.u.model = v.model;
  }

  /**
   * Messages API: `message_start` carries the input side and a first output count;
   * `message_delta` the output count so far (cumulative), and on some servers the input side too.
   */
  private fromAnthropic(usage: unknown, start: boolean): void {
    if (!isObject(usage)) return;
    this.seen = true;
    if (start || usage.input_tokens !== undefined) this.u.inputTokens = count(usage.input_tokens);
    if (start || usage.cache_read_input_tokens !== undefined) this.u.cacheReadTokens = count(usage.cache_read_input_tokens);
    if (start || usage.cache_creation_input_tokens !== undefined) this.u.cacheWriteTokens = count(usage.cache_creation_input_tokens);
    if (usage.output_tokens !== undefined) this.u.outputTokens = count(usage.output_tokens);
  }

  /** Responses API: cached tokens are counted inside input_tokens; the kinds here are disjoint. */
  private fromOpenAi(usage: unknown): void {
    if (!isObject(usage)) return;
    this.seen = true;
    const cached = isObject(usage.input_tokens_details) ? count(usage.input_tokens_details.cached_tokens) : 0;
    const input = count(usage.input_tokens);
    this.u.cacheReadTokens = Math.min(cached, input);
    this.u.inputTokens = input - this.u.cacheReadTokens;
    this.u.outputTokens = count(usage.output_tokens);
  }
}

/** Where the first complete server-sent event ends (the blank line after it), or -1. */
function eventEnd(text: string): number {
  const lf = text.indexOf('\n\n');
  const crlf = text.indexOf('\r\n\r\n');
  if (lf < 0) return crlf;
  if (crlf < 0) return lf;
  return Math.min(lf, crlf);
}

function separatorLength(text: string, at: number): number {
  return text.startsWith('\r\n\r\n', at) ? 4 : 2;
}

function count(v: unknown): number {
  return typeof v === 'number' ? safeCount(v) : 0;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
