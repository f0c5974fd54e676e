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
import {
  ABCD,
  cleanupAll,
  cloneFor,
  git,
  landingRemote,
  landOne,
  makeRemote,
  median,
  ms,
  must,
  NODE,
  REAL_GIT,
  run,
  sandbox,
  spawnAsync,
  table,
} from './lib.mjs';

/** @import { LandingSession } from './lib.mjs' */
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

// Every fifth item fails at 20%: spread over sessions and queue positions.
/** @type {(k: number, rate: number) => boolean} */
const fails = (k, rate) => rate > 0 && k % Math.round(100 / rate) === 2;

export async function benchLandSpeculate() {
  const floorMs = rawFloor();
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

/** node start + fetch + worktree add + rebase + leased push + worktree remove, median of 3. */
function rawFloor() {
  const { root, env } = sandbox('spec-floor');
  const bare = makeRemote(root, env);
  const r = cloneFor(bare, join(root, 'raw'), env, 'raw@example.com');
  const base = git(r, ['rev-parse', 'HEAD'], env).stdout.trim();
  const sums = [];
  for (let k = 0; k < 3; k++) {
    git(r, ['checkout', '-q', '-B', `raw/${k}`, base], env);
    writeFileSync(join(r, `raw-${k}.txt`), `${k}\n`);
    git(r, ['add', '.'], env);
    git(r, ['commit', '-q', '-m', `raw ${k}`], env);
    const wt = join(root, `wt-${k}`);
    let t = run(NODE, ['-e', '0'], { env }).ms;
    t += git(r, ['fetch', '-q', '--no-tags', 'origin', 'main'], env).ms;
    const main = git(r, ['rev-parse', 'origin/main'], env).stdout.trim();
    t += git(r, ['worktree', 'add', '--detach', '-q', wt, `raw/${k}`], env).ms;
    t += git(wt, ['rebase', '-q', main], env).ms;
    t += git(wt, ['push', '-q', `--force-with-lease=refs/heads/main:${main}`, 'origin', 'HEAD:refs/heads/main'], env).ms;
    t += git(r, ['worktree', 'remove', '--force', wt], env).ms;
    sums.push(t);
  }
  return median(sums);
}

/** @param {Row} row */
async function throughputOnce({ sessions: n, check, depth, fail }) {
  const { root, env, bare, sessions } = landingRemote({
    name: `spec-${n}-${check}-${depth}-${fail}`,
    config: { land: { checks: checkCommand(check), speculate: depth } },
    n,
    envOf: (e, _i, dir) => ({ ...e, ABCD_GATE_SLOTS: String(Math.max(2, depth)), CHECK_LOG: join(dir, 'checks.log') }),
  });
  const log = join(root, 'checks.log');
  writeFileSync(log, '');
  const t0 = performance.now();
  const results = await Promise.all(sessions.map((s) => sessionLoop(s, n, fail)));
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

/**
 * @param {LandingSession} s
 * @param {number} n sessions in all
 * @param {number} rate failures in percent
 */
async function sessionLoop(s, n, rate) {
  const out = [];
  const o = { cwd: s.dir, env: s.env };
  for (let k = 0; k < ITEMS_PER_SESSION; k++) {
    const item = `s${s.i}-i${k}`;
    const bad = fails(k * n + s.i, rate);
    await must(REAL_GIT, ['fetch', '-q', 'origin', 'main'], o);
    const { r, json } = await landOne(s, { item, file: bad ? `fail-${item}.txt` : `${item}.txt`, wait: WAIT });
    out.push({
      item,
      fails: bad,
      code: r.code,
      ms: r.ms,
      why: r.code === 0 ? '' : ((json?.refusal?.message ?? (r.stderr || r.stdout)).split('\n')[0] ?? ''),
    });
    if (r.code !== 0) await spawnAsync(NODE, [ABCD, 'release', item], o);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    console.log(await benchLandSpeculate());
  } finally {
    cleanupAll();
  }
}
