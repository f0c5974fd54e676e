// The lane sections of `abcd status` that want attention first: what failed or got stuck in the
// last day (one entry per item, with the kept branch and the next command), and the lanes at
// work now, one line each.
import type { StatusData } from '../status/status.js';
import { formatDuration, paint, printable, table } from './render.js';

/** A section as status-sections.ts lays them out. */
export interface LaneSection {
  title: string;
  head?: string[];
  rows: string[][];
  attention: boolean;
}

/** Each failed or stuck item of the last day: what failed, where its work is, what to run next. */
export function failureSections(s: StatusData, c: boolean): LaneSection[] {
  if (!s.failures.length) return [];
  return [
    {
      title: `Failed or stuck in the last day (${s.failures.length})`,
      rows: s.failures.map((f) => [
        paint(c, 'red', `  ${printable(f.item)}: ${printable(f.what)} (${formatDuration(s.readAt - f.at)} ago)`),
        `    ${f.branch ? `work kept on ${printable(f.branch)}; ` : ''}next: ${f.next.map(printable).join(' or ')}`,
      ]),
      attention: true,
    },
  ];
}

/** One line per lane at work: item, phase, for how long, tokens and cost, whose. */
export function runningSections(s: StatusData): LaneSection[] {
  const idle = s.lanes.filter((l) => l.state === 'running' && l.current.length === 0);
  if (!s.running.length && !idle.length) return [];
  const rows = s.running.map((r) => [
    printable(r.item),
    r.phase ? printable(r.phase) : 'starting',
    r.phaseForMs !== undefined && r.phaseForMs !== r.forMs
      ? `${formatDuration(r.forMs)} (${formatDuration(r.phaseForMs)} in phase)`
      : formatDuration(r.forMs),
    `${r.tokens} tokens`,
    r.costUsd ? `$${r.costUsd.toFixed(2)}` : '',
    printable(r.holderShort),
  ]);
  const lines = rows.length ? table(['ITEM', 'PHASE', 'FOR', 'USED', 'COST', 'HOLDER'], rows).split('\n') : [];
  const idleRows = idle.map((l) => [`  ${l.verb} ${l.runId} by ${printable(l.holder)}: waiting for work, ${l.landed} landed so far`]);
  return [
    {
      title: `Running lanes (${s.running.length})`,
      head: lines.slice(0, 1),
      rows: [...lines.slice(1).map((l) => [l]), ...idleRows],
      attention: true,
    },
  ];
}
