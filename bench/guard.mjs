// The guard against regression: each target's ratio from this run against its target and
// against the ratio the last recorded run measured (bench/ratios.json, committed with the results),
// a line per miss and per target 20% slower than last time.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** How much slower than the last recorded ratio a target may get before it is named. */
const SLOWER_BY = 0.2;

/** @typedef {{ what: string, ratio: string, limit: number, met: boolean }} Target */

/**
 * A target's name without its run's figures in parentheses ("reserve (free), warm" keeps its
 * own words; "(1 round trip, 4 git processes)" goes), so runs compare by what was measured.
 * @param {string} what
 */
export function targetKey(what) {
  return what
    .replace(/\s*\((\d[^)]*|[^)]*git processes[^)]*)\)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Compares this run's targets with the last recorded ratios, writes the merged record, and
 * returns one line per miss and per regression.
 * @param {Target[]} targets
 * @param {string} path
 * @returns {string[]}
 */
export function guard(targets, path) {
  /** @type {Record<string, number>} */
  const last = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  const lines = [];
  /** @type {Record<string, number>} */
  const now = { ...last };
  for (const t of targets) {
    const key = targetKey(t.what);
    const r = Number.parseFloat(t.ratio);
    if (!Number.isFinite(r)) continue;
    if (!t.met) lines.push(`missed: ${key}: ${r.toFixed(2)}x, target ≤ ${t.limit}x`);
    const before = last[key];
    if (before !== undefined && r > before * (1 + SLOWER_BY))
      lines.push(`slower: ${key}: ${r.toFixed(2)}x, was ${before.toFixed(2)}x (+${Math.round((r / before - 1) * 100)}%)`);
    now[key] = Number(r.toFixed(3));
  }
  writeFileSync(path, `${JSON.stringify(now, null, 2)}\n`);
  return lines;
}
