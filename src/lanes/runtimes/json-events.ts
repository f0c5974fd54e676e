// Reading what a CLI prints as one JSON event per line (`codex exec --json`, `gemini -o
// stream-json`), as it comes: whole lines are read, a partial one waits for its end, and a line
// too long to be one event is cut. What the runtime makes of an event is its own; the readable
// tail a turn's result shows is kept here. The stream is the agent's (hostile): a line that is
// not a JSON object is kept as text, never a crash.

// How much of the readable log a turn keeps for its result.
const TAIL_CHARS = 2000;
// A line longer than this is not one event: it is cut, never buffered without end.
const MAX_LINE_CHARS = 1 << 20;
/** How much of one command or message the tail and the live line show. */
export const SHOWN_CHARS = 300;

/** A string field as the tail and the live line show it (cut); anything else is empty. */
export function shown(v: unknown): string {
  return typeof v === 'string' ? v.slice(0, SHOWN_CHARS) : '';
}

export abstract class JsonEvents {
  private partial = '';
  private tail = '';

  /** Reads one event of the stream (a JSON object). */
  protected abstract event(e: Record<string, unknown>): void;

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

  /** Adds a line to the readable log. */
  protected keep(line: string): void {
    this.tail = `${this.tail}${line}\n`.slice(-TAIL_CHARS);
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    let e: Record<string, unknown>;
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an event');
      e = v as Record<string, unknown>;
    } catch {
      // a single parse: one line of the agent's stream, kept as text when it is no JSON object
      this.keep(line.slice(0, SHOWN_CHARS));
      return;
    }
    this.event(e);
  }
}
