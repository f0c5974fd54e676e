// Text for people: colour on a terminal, tables, relative times.
import { styleText } from '../core/builtins.js';
import { sanitizeLine, sanitizeText } from '../core/sanitize.js';
import { formatDuration, formatInstant } from '../core/duration.js';

type Style = Parameters<typeof styleText>[0];

/**
 * Colour on a terminal, plain text in a pipe. The caller knows which stream the text goes to, so
 * styleText is told not to judge process.stdout itself (Node 22.13+ would otherwise drop colour).
 */
export function paint(tty: boolean, style: Style, text: string): string {
  return tty ? styleText(style, text, { validateStream: false }) : text;
}

/** Lays rows out in aligned columns (the last column is not padded). */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => visible(r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(Math.max(0, (widths[i] ?? 0) - visible(c).length))))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** The text a terminal shows of `s`: without abcd's colour sequences. */
export function visible(s: string): string {
  // eslint-disable-next-line no-control-regex -- the colour escapes (ESC [ ... m) are what is measured away
  return s.replace(/\u001b\[[0-9;]*m/g, '');
}

export function inOrAgo(ms: number): string {
  return ms >= 0 ? `in ${formatDuration(ms)}` : `${formatDuration(-ms)} ago`;
}

export { formatDuration, formatInstant };

/** An instant in a --json answer: ISO 8601 UTC with milliseconds, the one format of every verb (ADR 0030). */
export function jsonInstant(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? new Date(0).toISOString() : d.toISOString();
}

/** Text from a remote record, safe to print on one line: no escapes, bidi or invisible characters. */
export function printable(text: string): string {
  return sanitizeLine(text);
}

// The only escapes abcd itself writes into a verb's text: paint()'s colours, on a terminal.
// eslint-disable-next-line no-control-regex -- the colour escapes (ESC [ ... m) are what this matches
const SGR = /\u001b\[[0-9;]*m/g;

/**
 * The last line of defence before a terminal: whatever a verb's text holds, only abcd's own
 * colour sequences survive (and only on a terminal); every other control, bidi or invisible
 * character is removed, newlines and tabs kept.
 */
export function sanitizeOutput(text: string, tty: boolean): string {
  if (!tty) return sanitizeText(text);
  let out = '';
  let last = 0;
  for (const m of text.matchAll(SGR)) {
    out += sanitizeText(text.slice(last, m.index)) + m[0];
    last = m.index + m[0].length;
  }
  return out + sanitizeText(text.slice(last));
}
