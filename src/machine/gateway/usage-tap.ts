// What one model answer used, read from the API's own answer as it streams past the gateway:
// a `text/event-stream` answer event by event (whatever chunks it comes in), anything else as
// one JSON body. Which events carry usage, and how, is the dialect's (dialects.ts).
import { emptyUsage, type CycleUsage } from '../budget/usage.js';
import { isObject, type Dialect } from './dialects.js';

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
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly dialect: Dialect,
    /** `text/event-stream` answers are read event by event; anything else as one JSON body. */
    private readonly streaming: boolean,
  ) {}

  push(chunk: Buffer): void {
    // A character split between chunks is decoded whole.
    const piece = this.decoder.decode(chunk, { stream: true });
    if (!this.streaming) {
      if (this.json.length + piece.length <= MAX_EVENT_CHARS) this.json += piece;
      else this.skipping = true;
      return;
    }
    this.text += piece;
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
    if (!this.streaming && !this.skipping && this.json) {
      const v = parse(this.json);
      if (v && this.dialect.readBody(v, this.u)) this.seen = true;
    }
    return this.seen ? { ...this.u, turns: 1 } : undefined;
  }

  private read(event: string): void {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (!data || data === '[DONE]') return;
    const v = parse(data);
    if (v && this.dialect.readEvent(v, this.u)) this.seen = true;
  }
}

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    // a single parse: the API's answer, which may be no JSON at all
    return undefined;
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
