// One line of a runtime's stream as transcript lines: each runtime's spec reads the events of
// its own stream (a line per tool call with its target, the assistant's text, errors, the usage
// a turn ends with). A JSON line no runtime knows, or an event nothing reads (the init's tool
// list, partial deltas, replays of abcd's own input), gives no line: never raw JSON.
import { RUNTIMES } from '../runtimes/index.js';

const READERS = Object.values(RUNTIMES).flatMap((r) => (r.transcriptLines ? [r.transcriptLines] : []));

/** The transcript lines of one stream line that is JSON, or undefined when it is not a runtime's event. */
export function eventLines(line: string): string[] | undefined {
  if (!line.startsWith('{')) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    // a single parse: a line that opens like JSON and is not is no runtime's event
    return undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const e = v as Record<string, unknown>;
  if (typeof e.type !== 'string') return [];
  for (const read of READERS) {
    const lines = read(e);
    if (lines) return lines;
  }
  // Some other JSON the runtime printed: never shown raw.
  return [];
}
