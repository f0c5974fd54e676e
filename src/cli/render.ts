import { styleText } from 'node:util';
import { formatDuration, formatInstant } from '../time/duration.js';

type Style = Parameters<typeof styleText>[0];

/** Colour on a terminal, plain text in a pipe. */
export function paint(tty: boolean, style: Style, text: string): string {
  return tty ? styleText(style, text) : text;
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

function visible(s: string): string {
  return s.replace(/\u001b\[[0-9;]*m/g, '');
}

export function inOrAgo(ms: number): string {
  return ms >= 0 ? `in ${formatDuration(ms)}` : `${formatDuration(-ms)} ago`;
}

export { formatDuration, formatInstant };

/** Text from a remote record, safe to print: control characters (terminal escapes) shown as '?'. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}
