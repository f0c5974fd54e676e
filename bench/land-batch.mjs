#!/usr/bin/env node
// Landing throughput with batches (land.batch): 8 sessions, 10 s checks, 2 gate slots on the one
// machine folder, squash (one commit per item), batch 1, 2, 4 and 8, each alone (land.speculate 1)
// and stacked (land.speculate 2), failures injected at 0% and 20%: 16 rows and the serial ceiling
// in one invocation. Counts the check runs each landed item cost and every first-parent commit on
// main that no passing check saw on exactly its tree and first parent (must be 0). Build first
// (npm run build). Prints Markdown.
//
//   node bench/land-batch.mjs                          the whole matrix
//   BENCH_BATCH_ROWS=1:1:0,4:2:20 node bench/land-batch.mjs
//                                                      batch:speculate:failure % rows only
//   BENCH_BATCH_ITEMS=2                                items each session lands (default 2)
//
// A build without land.batch refuses a config that names it, so there only batch 1 rows run
// (batch 1 leaves the key out of .abcd/config.json).
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { cleanupAll, git, landingRemote, landInARow, median, ms, rawLandFloor, REAL_GIT, table } from './lib.mjs';

/** @import { LandedItem } from './lib.mjs' */
/** @typedef {{ batch: number, speculate: number, fail: number }} Row fail in percent */

const SESSIONS = 8;
const CHECK_SECONDS = 10;
// Two heavy jobs at once on the shared machine folder: what a 4-core laptop's default would allow.
const GATE_SLOTS = 2;
const ITEMS_PER_SESSION = Number(process.env.BENCH_BATCH_ITEMS ?? 2);
const WAIT = '60m';
// A row whose lands all went wrong would otherwise print one note per item.
const NOTES_PER_ROW = 4;

/** @type {Row[]} */
const MATRIX = [];
for (const fail of [0, 20]) for (const batch of [1, 2, 4, 8]) for (const speculate of [1, 2]) MATRIX.push({ batch, speculate, fail });
const ROWS = process.env.BENCH_BATCH_ROWS ? process.env.BENCH_BATCH_ROWS.split(',').map(parseRow) : MATRIX;

/** @param {string} text */
function parseRow(text) {
  const parts = text.split(':').map(Number);
  const [batch, speculate, fail] = parts;
  if (parts.length !== 3 || batch === undefined || speculate === undefined || fail === undefined || parts.some((x) => !Number.isInteger(x)))
    throw new Error(`BENCH_BATCH_ROWS: "${text}" is not batch:speculate:failure %, e.g. 4:2:20`);
  if (batch < 1 || speculate < 1 || fail < 0 || fail > 100)
    throw new Error(`BENCH_BATCH_ROWS: "${text}": batch and speculate are at least 1, the failure rate 0 to 100`);
  return { batch, speculate, fail };
}

// The check sleeps, fails when the tree holds a file an item marked to fail added, and records
// the commit it ran on, that commit's tree, the main commit the landing goes onto and its verdict.
// A batch lands as one merge whose tree is the tested tree but whose commit is not the tested
// one, so a landing is matched by (tree, base), never by the tested commit's own parent.
const CHECK =
  `sleep ${CHECK_SECONDS}; r=0; if ls fail-*.txt >/dev/null 2>&1; then r=1; fi; ` +
  'echo "$(git rev-parse HEAD "HEAD^{tree}" | tr "\\n" " ")$ABCD_LAND_BASE $r" >> "$CHECK_LOG"; exit $r';

// How long a batch's head waits for its batch to fill (land.batchWait); BENCH_BATCH_WAIT=0 for none.
const BATCH_WAIT = process.env.BENCH_BATCH_WAIT === '0' ? undefined : (process.env.BENCH_BATCH_WAIT ?? '3s');

/** @param {Row} row */
const landConfig = ({ batch, speculate }) => ({
  checks: CHECK,
  speculate,
  strategy: 'squash',
  // Unsandboxed, and given CHECK_LOG: a sandboxed check could neither see the log's name nor write outside its worktree.
  sandbox: 'none',
  env: ['CHECK_LOG'],
  // A build without batches refuses the key: batch 1 is its default, so it is left out.
  ...(batch > 1 ? { batch, ...(BATCH_WAIT ? { batchWait: BATCH_WAIT } : {}) } : {}),
});

export async function benchLandBatch() {
  const loadBefore = load();
  const started = new Date().toISOString().slice(0, 16);
  const floorMs = rawLandFloor();
  const ceiling = 60_000 / (CHECK_SECONDS * 1000 + floorMs);
  const rows = [];
  const notes = [];
  for (const row of ROWS) {
    const res = await throughputOnce(row);
    const perMin = (res.landed / res.wallMs) * 60_000;
    const settledPerMin = ((res.landed + res.refused) / res.wallMs) * 60_000;
    rows.push([
      String(row.batch),
      String(row.speculate),
      `${row.fail}%`,
      `${res.landed}/${res.items} (${res.refused} refused, ${res.expectedRefusals} to fail)`,
      ms(res.wallMs),
      `${perMin.toFixed(1)} (${(perMin / ceiling).toFixed(2)}x)`,
      `${settledPerMin.toFixed(1)} (${(settledPerMin / ceiling).toFixed(2)}x)`,
      res.landed ? (res.checkRuns / res.landed).toFixed(2) : '-',
      String(res.checkRuns),
      String(res.commits),
      String(res.untested),
      String(res.unexpected),
      res.landMs.length ? ms(median(res.landMs)) : '-',
    ]);
    const at = `batch ${row.batch}, speculate ${row.speculate}, ${row.fail}%`;
    notes.push(...res.notes.map((n) => `- ${at}: ${n}`));
    process.stderr.write(`done ${JSON.stringify(row)} ${perMin.toFixed(1)}/min\n`);
  }
  const gitVersion = git('.', ['--version'], process.env).stdout.trim();
  return [
    '## Landing throughput with batches (`land.batch`)',
    '',
    `Run ${started}Z, node ${process.version}, ${gitVersion} (${REAL_GIT}), load average ${loadBefore} before, ${load()} after.`,
    '',
    `${SESSIONS} sessions, each its own clone, HOME and \`ABCD_SESSION\`; one shared \`ABCD_MACHINE_DIR\` with \`ABCD_GATE_SLOTS=${GATE_SLOTS}\`; ` +
      `\`land.strategy: "squash"\`${BATCH_WAIT ? `, and with batches \`land.batchWait: "${BATCH_WAIT}"\`` : ''}. Each session lands ${ITEMS_PER_SESSION} items in a row (reserve, commit a new file on a work branch from main, ` +
      `\`abcd land --wait ${WAIT}\`), all sessions started at once. The check sleeps ${CHECK_SECONDS} s, then records the commit it ran on, ` +
      'its tree and `ABCD_LAND_BASE`. A failing item adds a file that fails the check (every fifth item at 20%): its land must be refused (exit 3). ' +
      `Serial ceiling: 60 s / (check + the raw git floor of a landing, ${ms(floorMs)}, measured in this run) = ${ceiling.toFixed(2)} items/min.`,
    'runs per item: check runs / landed items (the CI cost); commits: first-parent commits the run put on main (a batch lands as one); ' +
      'untested: those no passing check saw on exactly their tree and first parent (must be 0); ' +
      'unexpected: a land that ended otherwise than planned (must be 0); ' +
      'settled: landed or refused, as a serial queue settles one item per check run whether it passes or fails. ' +
      `Each check run says pass or fail, one bit: with a fraction p of items failing independently, settling an item takes at least H(p) runs ` +
      `(0.72 at 20%), so ${GATE_SLOTS} slots settle at most ${GATE_SLOTS}/H(p) items per check time: ${(GATE_SLOTS / 0.722).toFixed(2)}x settled, ` +
      `${((GATE_SLOTS * 0.8) / 0.722).toFixed(2)}x landed at 20%.`,
    '',
    table(
      [
        'batch',
        'speculate',
        'failures',
        'landed',
        'wall',
        'landed/min (x serial ceiling)',
        'settled/min (x serial ceiling)',
        'runs per item',
        'check runs',
        'commits',
        'untested',
        'unexpected',
        'one land, median',
      ],
      rows,
    ),
    '',
    ...(notes.length ? ['Notes:', '', ...notes, ''] : []),
  ].join('\n');
}

/** The one-minute load average, as printed. */
const load = () => (loadavg()[0] ?? 0).toFixed(1);

/** @param {Row} row */
async function throughputOnce(row) {
  const { root, env, bare, sessions } = landingRemote({
    name: `batch-${row.batch}-${row.speculate}-${row.fail}`,
    config: { land: landConfig(row) },
    n: SESSIONS,
    envOf: (e, _i, dir) => ({ ...e, ABCD_GATE_SLOTS: String(GATE_SLOTS), CHECK_LOG: join(dir, 'checks.log') }),
  });
  const log = join(root, 'checks.log');
  writeFileSync(log, '');
  const t0 = performance.now();
  const settle = { sessions: SESSIONS, rate: row.fail, items: ITEMS_PER_SESSION, wait: WAIT };
  const results = await Promise.all(sessions.map((s) => landInARow(s, settle)));
  const wallMs = performance.now() - t0;
  const items = results.flat();
  const runs = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' '));
  const untested = untestedOnMain(bare, env, runs);
  const landed = items.filter((x) => x.code === 0);
  const unexpected = items.filter((x) => (x.fails ? x.code !== 3 : x.code !== 0));
  return {
    items: items.length,
    landed: landed.length,
    refused: items.filter((x) => x.code === 3).length,
    expectedRefusals: items.filter((x) => x.fails).length,
    wallMs,
    checkRuns: runs.length,
    commits: untested.commits,
    untested: untested.count,
    unexpected: unexpected.length,
    landMs: landed.map((x) => x.ms),
    notes: [...cappedNotes(unexpected), ...mainContents(bare, env, landed)],
  };
}

/**
 * First-parent commits on main (the remote's two set-up commits left out) that no passing check
 * saw on exactly their tree and first parent. Each check run logged: commit, tree, base, exit code.
 * @param {string} bare
 * @param {NodeJS.ProcessEnv} env
 * @param {string[][]} runs
 */
function untestedOnMain(bare, env, runs) {
  const passed = new Set(runs.filter((r) => r[3] === '0').map((r) => `${r[1]} ${r[2]}`));
  const onMain = git(bare, ['log', '--first-parent', '--format=%H %T %P', 'main'], env)
    .stdout.trim()
    .split('\n')
    .map((l) => l.split(' '))
    .slice(0, -2);
  return { commits: onMain.length, count: onMain.filter((c) => !passed.has(`${c[1]} ${c[2]}`)).length };
}

/**
 * Main must hold exactly the landed items' files and no failing item's: a land that answered
 * 0 without landing, or landed work it refused, would show here.
 * @param {string} bare
 * @param {NodeJS.ProcessEnv} env
 * @param {LandedItem[]} landed
 */
function mainContents(bare, env, landed) {
  const files = new Set(git(bare, ['ls-tree', '--name-only', 'main'], env).stdout.split('\n'));
  const missing = landed.filter((x) => !files.has(`${x.item}.txt`)).map((x) => x.item);
  const failing = [...files].filter((f) => f.startsWith('fail-'));
  return [
    ...(missing.length ? [`**landed but not on main**: ${missing.join(', ')}`] : []),
    ...(failing.length ? [`**a failing item's file is on main**: ${failing.join(', ')}`] : []),
  ];
}

/** @param {LandedItem[]} unexpected */
function cappedNotes(unexpected) {
  const shown = unexpected.slice(0, NOTES_PER_ROW).map((x) => `${x.item}: exit ${x.code}: ${x.why}`);
  const more = unexpected.length - shown.length;
  return more > 0 ? [...shown, `and ${more} more unexpected ends`] : shown;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    console.log(await benchLandBatch());
  } finally {
    cleanupAll();
  }
}
