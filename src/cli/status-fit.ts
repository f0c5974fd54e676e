// Lays status sections out on a terminal of a given size: lines cut to its width (warnings
// wrapped at spaces instead, so a path is never cut), and never more lines than it has rows.
// Sections that want attention come first and keep their place; the rest give way.
import { visible } from './render.js';
import type { Section } from './status-sections.js';

export interface FitOptions {
  /** Lines the view may take; undefined prints everything (a pipe, or --all). */
  rows?: number;
  /** The terminal's width; undefined cuts and wraps nothing. */
  width?: number;
  /** Cuts a line to the width. */
  cut: (line: string) => string;
}

const MORE_BELOW = '… more below: abcd status --all shows everything';

interface Laid {
  top: string[];
  rows: string[][];
}

export function layOut(sections: readonly Section[], o: FitOptions): string[] {
  const laid = sections.map((s, i): Laid => {
    const top = [...(i > 0 ? [''] : []), ...(s.title !== undefined ? [s.title] : []), ...(s.head ?? [])];
    // A section without a title holds notes and warnings: wrapped, never cut.
    const rows = s.rows.map((r) => r.flatMap((l) => (s.title === undefined ? wrapAtSpaces(l, o.width) : [o.width ? o.cut(l) : l])));
    return { top, rows };
  });
  const height = (l: Laid) => l.top.length + l.rows.reduce((n, r) => n + r.length, 0);
  const budget = o.rows;
  if (budget === undefined || laid.reduce((n, l) => n + height(l), 0) <= budget) return laid.flatMap((l) => [...l.top, ...l.rows.flat()]);

  // Each section shown needs its top and one line (a row, or the count of what it leaves out).
  const order = sections.map((s, i) => i).sort((a, b) => Number(sections[b]!.attention) - Number(sections[a]!.attention) || a - b);
  const shown = new Set<number>();
  let used = 1; // the line that says more is below, should a section be left out
  for (const i of order) {
    const need = laid[i]!.top.length + 1;
    if (used + need > budget) break;
    shown.add(i);
    used += need;
  }
  if (shown.size === sections.length) used -= 1;
  let spare = budget - used;
  let leftOut = shown.size < sections.length;
  const out: string[] = [];
  for (const [i, l] of laid.entries()) {
    if (!shown.has(i)) continue;
    const start = out.length;
    out.push(...(out.length === 0 ? l.top.filter((t, j) => j > 0 || t !== '') : l.top));
    const all = l.rows.reduce((n, r) => n + r.length, 0);
    if (all <= 1 + spare) {
      out.push(...l.rows.flat());
      spare -= Math.max(0, all - 1);
      continue;
    }
    // As many whole rows as fit beside the line that counts the rest.
    let room = spare;
    let k = 0;
    while (k < l.rows.length && l.rows[k]!.length <= room) room -= l.rows[k++]!.length;
    spare = room;
    // Notes with none shown are left out whole: the last line says more is below.
    if (k === 0 && sections[i]!.title === undefined) {
      out.splice(start);
      leftOut = true;
      continue;
    }
    out.push(...l.rows.slice(0, k).flat(), `  … ${l.rows.length - k} more (abcd status --all shows every one)`);
  }
  if (leftOut) out.push(MORE_BELOW);
  return out;
}

/** Breaks a line at spaces to fit `width`; a word longer than the width keeps its own line whole. */
export function wrapAtSpaces(line: string, width: number | undefined): string[] {
  if (!width || visibleLength(line) <= width) return [line];
  const indent = /^ */.exec(visible(line))![0];
  const out: string[] = [];
  let cur = '';
  for (const word of line.trimStart().split(' ')) {
    const next = cur === '' ? `${out.length ? `${indent}  ` : indent}${word}` : `${cur} ${word}`;
    if (cur !== '' && visibleLength(next) > width) {
      out.push(cur);
      cur = `${indent}  ${word}`;
    } else cur = next;
  }
  if (cur !== '') out.push(cur);
  return out;
}

function visibleLength(s: string): number {
  return [...visible(s)].length;
}
