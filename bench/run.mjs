#!/usr/bin/env node
// Runs the benchmarks once (build first: npm run bench), prints a Markdown summary and
// merges it into bench/results.md. Every ratio is against raw git or `node -e 0` from this run.
//
//   node bench/run.mjs              every part; results.md is rewritten
//   node bench/run.mjs land verbs   only these parts; their sections replace the same-numbered
//                                   sections of results.md, the others are kept
// Parts: verbs (section 1), status (2, 4), startup (3), land (5, 6), choices (7), nodes (8: Node 22,
// 24 and 26 side by side, ABCD_BENCH_NODES=22,24,26 names them); section 0, the speed targets,
// gathers the rows each part measured.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { cleanupAll, git, REAL_GIT, table, targets } from './lib.mjs';
import { benchChoices } from './choices.mjs';
import { benchLand } from './land.mjs';
import { benchNodeLines } from './node-lines.mjs';
import { benchStartup } from './startup.mjs';
import { benchStatusScale } from './status-scale.mjs';
import { benchVerbs } from './verbs.mjs';
import { guard } from './guard.mjs';

const PARTS = {
  verbs: async () => [await benchVerbs()],
  status: async () => {
    const { scale, breakdown } = await benchStatusScale();
    return [scale, breakdown];
  },
  startup: async () => [await benchStartup()],
  land: async () => [await benchLand()],
  choices: async () => [await benchChoices()],
  nodes: async () => [await benchNodeLines()],
};
const asked = process.argv.slice(2);
for (const p of asked) {
  if (!(p in PARTS)) {
    console.error(`unknown part "${p}"; parts: ${Object.keys(PARTS).join(', ')}`);
    process.exit(2);
  }
}
const all = /** @type {(keyof typeof PARTS)[]} */ (Object.keys(PARTS));
const parts = asked.length ? all.filter((p) => asked.includes(p)) : all;
const partial = parts.length < all.length;

const started = Date.now();
/** The one-minute load average, as printed. */
const load = () => (loadavg()[0] ?? 0).toFixed(1);
const loadBefore = load();
process.on('SIGINT', () => {
  cleanupAll();
  process.exit(130);
});
/** @type {string[]} */
const fresh = [];
try {
  for (const p of parts) fresh.push(...(await PARTS[p]()));
} finally {
  cleanupAll();
}
if (targets.length) fresh.push(targetsSection());

const gitVersion = git('.', ['--version'], process.env).stdout.trim();
const runLine =
  `${new Date().toISOString().slice(0, 16)}Z, node ${process.version}, ${gitVersion} (${REAL_GIT}), ` +
  `${cpus().length} CPUs, whole run ${Math.round((Date.now() - started) / 1000)} s, ` +
  `load average ${loadBefore} before, ${load()} after.`;
const NOISE = 'Machines are noisy: compare ratios, not absolute times.';
const PARTIAL = 'Partial run';

const resultsPath = join(import.meta.dirname, 'results.md');
let head = ['# abcd benchmarks', '', `${runLine} ${NOISE}`, ''].join('\n');
let sections = fresh.flatMap((s) => splitSections(s).sections).sort((x, y) => numberOf(x) - numberOf(y));
if (partial && existsSync(resultsPath)) {
  // Keep the sections this run did not produce, replace those it did (by their number).
  const old = splitSections(readFileSync(resultsPath, 'utf8'));
  const numbers = new Set(fresh.flatMap((s) => splitSections(s).sections.map(numberOf)));
  const kept = old.sections.filter((s) => !numbers.has(numberOf(s)));
  sections = [...kept, ...sections].sort((x, y) => numberOf(x) - numberOf(y));
  const oldHead = old.head.split('\n').filter((l) => !l.startsWith(PARTIAL));
  while (oldHead.length && oldHead.at(-1) === '') oldHead.pop();
  const nums = [...numbers].sort((x, y) => x - y).join(', ');
  head = [...oldHead, '', `${PARTIAL} (\`${parts.join(' ')}\`), sections ${nums} only: ${runLine}`, ''].join('\n');
}
const md = [head, ...sections.map((s) => s.replace(/\n*$/, '\n'))].join('\n');
process.stdout.write(partial ? [head, ...fresh].join('\n') : md);
writeFileSync(resultsPath, md);
// Each miss and each target 20% slower than the last recorded run, on stderr, after the results.
const said = guard(targets, join(import.meta.dirname, 'ratios.json'));
process.stderr.write(said.length ? `${said.join('\n')}\n` : 'every target met, none 20% slower than last recorded\n');

/**
 * Splits Markdown at its `## ` headings: {head, sections}.
 * @param {string} text
 */
function splitSections(text) {
  const chunks = text.split(/\n(?=## )/);
  const head = chunks[0]?.startsWith('## ') ? '' : (chunks.shift() ?? '');
  return { head, sections: chunks };
}

/**
 * The number of a `## N. title` section (Infinity for an unnumbered one: kept last).
 * @param {string} section
 */
function numberOf(section) {
  const m = /^## (\d+)\./.exec(section);
  return m ? Number(m[1]) : Infinity;
}

/** Section 0: every row of the speed targets' table this run measured, as a ratio against its target. */
function targetsSection() {
  const rows = targets.map((t) => [t.what, t.abcd, t.baseline, t.ratio, `≤ ${t.limit}x: ${t.met ? 'met' : '**missed**'}`]);
  return [
    '## 0. Targets',
    '',
    'Every ratio from this run; the sections below have the detail.',
    '',
    table(['what', 'abcd', 'baseline (same run)', 'ratio', 'target'], rows),
    '',
  ].join('\n');
}
