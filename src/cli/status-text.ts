// `abcd status` for people: the header, the body (status-sections.ts says what, status-fit.ts
// how much of it fits a terminal), and the signature --watch redraws on.
import type { StatusData } from '../status/status.js';
import { paint, printable } from './render.js';
import { layOut } from './status-fit.js';
import { statusSections, type GateSummary } from './status-sections.js';

export type { GateSummary } from './status-sections.js';
export { statusWarnings } from './status-sections.js';

export interface TextStyle {
  /** Colour (a terminal, and NO_COLOR unset). */
  colour: boolean;
  /** Cuts a line to the terminal's width; undefined on a pipe, where nothing is cut. */
  fit?: (line: string) => string;
  /** The terminal's width, for wrapping warnings; undefined on a pipe. */
  width?: number;
  /** Lines the body may take (a terminal's rows less the header and what follows); undefined: all. */
  rows?: number;
  /** Every landed item by name, and no limit on rows. */
  all?: boolean;
  /** Also the notes that are not about what the records say. */
  verbose?: boolean;
  /** Warnings left out of the body (--watch shows them once, in its footer). */
  noWarnings?: boolean;
}

/** The header line: which remote, as whom, and (unless watching, where the footer says it) when. */
export function statusHeader(s: StatusData, style: TextStyle, withTime = true): string {
  const time = withTime ? `, read ${readTime(s.readAt)}` : '';
  return paint(style.colour, ['bold', 'cyan'], `abcd status: ${printable(s.remote)}${time} as ${printable(s.session)}`);
}

export function readTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)}Z`;
}

/** Everything below the header. Stable between reads when nothing changed but the clock. */
export function statusBody(s: StatusData, gate: GateSummary, style: TextStyle): string {
  const sections = statusSections(s, gate, {
    colour: style.colour,
    all: style.all === true,
    verbose: style.verbose === true,
    noWarnings: style.noWarnings === true,
    ...(style.width ? { width: style.width } : {}),
  });
  return layOut(sections, {
    ...(style.all || style.rows === undefined ? {} : { rows: style.rows }),
    ...(style.width ? { width: style.width } : {}),
    cut: style.fit ?? ((line) => line),
  }).join('\n');
}

/**
 * What the records say, without the clock: --watch redraws when this changes (and refreshes
 * relative times at most once a minute otherwise).
 */
export function statusSignature(s: StatusData, gate: GateSummary): string {
  return JSON.stringify([
    s.claims.map((x) => [x.ref, x.tip, x.state, x.stale]),
    s.queue.map((q) => [q.item, q.head, q.alive]),
    s.announcements.map((a) => [a.ref, a.at]),
    s.lanes.map((l) => [l.runId, l.state, l.at]),
    s.pending.map((p) => [p.item, p.at]),
    s.steers.map((x) => [x.item, x.id]),
    s.receipts.map((r) => [r.item, r.runId, r.at]),
    s.refused.map((r) => [r.ref, r.message]),
    [gate.holders, gate.waiters, s.unknown.length, s.clockSkew?.writer ?? null],
  ]);
}

/** Cuts lines to `width` columns (cli-truncate, loaded only for a terminal: a pipe cuts nothing). */
export async function fitTo(width: number): Promise<(line: string) => string> {
  const { default: cliTruncate } = await import('cli-truncate');
  return (line) => cliTruncate(line, width, { position: 'end' });
}
