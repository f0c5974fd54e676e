#!/usr/bin/env node
// 7. Landing throughput with speculation (land.speculate, ADR 0041): checks of 1 s and 10 s, 1, 4
// and 8 sessions, depth 1, 2 and 4, failures injected at 0% and 20%. Counts the tests run, the
// ones thrown away, and every commit on main that no check saw on exactly its tree and parent
// (must be 0). Build first (npm run build). Prints Markdown.
//
//   node bench/land-speculate.mjs                         the whole matrix (hours on 2 cores)
//   BENCH_SPEC_ROWS=8:10:1:0,8:10:4:0 node bench/land-speculate.mjs
//                                                         sessions:check s:depth:failure % rows only
//   BENCH_SPEC_ITEMS=2                                    items each session lands (default 2)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, git, landingRemote, landInARow, median, ms, rawLandFloor, table } from './lib.mjs';

/** @typedef {{ sessions: number, check: number, depth: number, fail: number }} Row check in seconds, fail in percent */

const ITEMS_PER_SESSION = Number(process.env.BENCH_SPEC_ITEMS ?? 2);
const WAIT = '60m';
/** @type {Row[]} */
const MATRIX = [];
for (const check of [1, 10])
  for (const sessions of [1, 4, 8])
    for (const depth of [1, 2, 4]) for (const fail of [0, 20]) MATRIX.push({ sessions, check, depth, fail });
const ROWS = process.env.BENCH_SPEC_ROWS
  ? process.env.BENCH_SPEC_ROWS.split(',').map((r) => {
      const [sessions, check, depth, fail] = r.split(':').map(Number);
      if (
        sessions === undefined ||
        check === undefined ||
        depth === undefined ||
        fail === undefined ||
        [sessions, check, depth, fail].some(isNaN)
      )
        throw new Error(`BENCH_SPEC_ROWS: "${r}" is not sessions:check s:depth:failure %, e.g. 8:10:1:0`);
      return { sessions, check, depth, fail };
    })
  : MATRIX;

// The check sleeps, records what it saw (HEAD, its tree, its parent, its verdict), and fails
// when the tree holds a file an item marked to fail added (so do the trees stacked on it).
/** @type {(seconds: number) => string} */
const checkCommand = (seconds) =>
  `sleep ${seconds}; r=0; if ls fail-*.txt >/dev/null 2>&1; then r=1; fi; ` +
  'echo "$(git rev-parse HEAD "HEAD^{tree}" "HEAD^" | tr "\\n" " ")$r" >> "$CHECK_LOG"; exit $r';

export async function benchLandSpeculate() {
  const floorMs = rawLandFloor();
  const rows = [];
  const notes = [];
  for (const row of ROWS) {
    const res = await throughputOnce(row);
    const ceiling = 60_000 / (row.check * 1000 + floorMs);
    const perMin = (res.landed / res.wallMs) * 60_000;
    rows.push([
      String(row.sessions),
      `${row.check} s`,
      String(row.depth),
      `${row.fail}%`,
      `${res.landed}/${res.items} (${res.refused} refused, ${res.expectedRefusals} to fail)`,
      ms(res.wallMs),
      `${perMin.toFixed(1)} (${(perMin / ceiling).toFixed(2)}x)`,
      String(res.tests),
      String(res.distinct),
      String(res.wasted),
      String(res.untested),
      String(res.unexpected),
      `${ms(median(res.landMs))}`,
    ]);
    notes.push(...res.notes.map((n) => `- ${row.sessions} sessions, ${row.check} s, depth ${row.depth}, ${row.fail}%: ${n}`));
    process.stderr.write(`done ${JSON.stringify(row)} ${perMin.toFixed(1)}/min\n`);
  }
  return [
    '## 7. Landing throughput with speculation (`land.speculate`)',
    '',
    `Each session: its own clone, HOME and \`ABCD_SESSION\`; one shared \`ABCD_MACHINE_DIR\` with as many gate slots as the depth. ` +
      `Each lands ${ITEMS_PER_SESSION} items in a row (reserve, commit a new file on a work branch from main, \`abcd land --wait ${WAIT}\`), ` +
      'all sessions started at once. The check sleeps, then records the HEAD, tree and parent it saw. ' +
      'A failing item adds a file that fails the check (every fifth item at 20%): its land must be refused, and every test stacked on it is thrown away. ' +
      `Serial ceiling: 60 s / (check + the raw git floor of a landing, ${ms(floorMs)}, measured in this run).`,
    'tests: check runs; trees: distinct (tree, parent) pairs tested; wasted: runs whose commit did not land, beyond the one run each failing item needs; ' +
      'untested: commits on main no passing check saw on exactly its tree and parent (must be 0); unexpected: a land that ended otherwise than planned (must be 0).',
    '',
    table(
      [
        'sessions',
        'check',
        'depth',
        'failures',
        'landed',
        'wall',
        'items/min (x serial ceiling)',
        'tests',
        'trees',
        'wasted',
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

/** @param {Row} row */
async function throughputOnce({ sessions: n, check, depth, fail }) {
  const { root, env, bare, sessions } = landingRemote({
    name: `spec-${n}-${check}-${depth}-${fail}`,
    // Unsandboxed, and given CHECK_LOG: a sandboxed check could neither see the log's name nor write outside its worktree.
    config: { land: { checks: checkCommand(check), speculate: depth, sandbox: 'none', env: ['CHECK_LOG'] } },
    n,
    envOf: (e, _i, dir) => ({ ...e, ABCD_GATE_SLOTS: String(Math.max(2, depth)), CHECK_LOG: join(dir, 'checks.log') }),
  });
  const log = join(root, 'checks.log');
  writeFileSync(log, '');
  const t0 = performance.now();
  const results = await Promise.all(sessions.map((s) => landInARow(s, { sessions: n, rate: fail, items: ITEMS_PER_SESSION, wait: WAIT })));
  const wallMs = performance.now() - t0;
  const items = results.flat();
  const seen = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' '));
  const onMain = git(bare, ['log', '--first-parent', '--format=%H %T %P', 'main'], env)
    .stdout.trim()
    .split('\n')
    .map((l) => l.split(' '))
    .slice(0, -2);
  const passed = new Set(seen.filter((s) => s[3] === '0').map((s) => s.slice(0, 3).join(' ')));
  const untested = onMain.filter((c) => !passed.has(c.slice(0, 3).join(' '))).length;
  const landedTips = new Set(onMain.map((c) => c[0]));
  const expectedRefusals = items.filter((x) => x.fails).length;
  const landed = items.filter((x) => x.code === 0);
  const unexpected = items.filter((x) => (x.fails ? x.code !== 3 : x.code !== 0));
  return {
    items: items.length,
    landed: landed.length,
    refused: items.filter((x) => x.code === 3).length,
    expectedRefusals,
    wallMs,
    tests: seen.length,
    distinct: new Set(seen.map((s) => `${s[1]} ${s[2]}`)).size,
    wasted: seen.filter((s) => !landedTips.has(s[0])).length - expectedRefusals,
    untested,
    unexpected: unexpected.length,
    landMs: landed.map((x) => x.ms),
    notes: unexpected.map((x) => `${x.item}: exit ${x.code}: ${x.why}`),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    console.log(await benchLandSpeculate());
  } finally {
    cleanupAll();
  }
}
