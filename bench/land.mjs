// 5. `abcd land` with an empty queue against the raw git it must do; git spawns and round trips.
// 6. Land throughput: 1, 4 and 8 concurrent sessions on one computer, each landing items in a row.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  abcd,
  classify,
  cloneFor,
  git,
  gitLogger,
  landingRemote,
  landOne,
  makeRemote,
  mark,
  median,
  ms,
  NODE,
  ratio,
  REAL_GIT,
  run,
  sandbox,
  subcommand,
  table,
  target,
} from './lib.mjs';

/** @import { Env, LandingSession } from './lib.mjs' */
/** @typedef {{ node: number, fetch: number, add: number, rebase: number, push: number, remove: number }} RawSteps */
/** @type {(keyof RawSteps)[]} */
const RAW_STEPS = ['node', 'fetch', 'add', 'rebase', 'push', 'remove'];

const REPS = 5; // timed lands; one more, first, is counted through the git wrapper
const CHECK = 'sleep 1';
// BENCH_LAND_SESSIONS=1,2 for a quick try; the figures in results.md use 1, 4, 8.
const SESSIONS = (process.env.BENCH_LAND_SESSIONS ?? '1,4,8').split(',').map(Number);
const ITEMS_PER_SESSION = 3;
const WAIT = '10m';
const WAIT_MS = 10 * 60_000;
const WATCH_MS = 10; // how often the bench looks at main on the remote during a throughput run

export async function benchLand() {
  const latency = benchLatency();
  const throughput = await benchThroughput(latency.floorMs);
  return [latency.md, throughput].join('\n');
}

// ---------------------------------------------------------------------------------------------
// 5. Latency, empty queue, no checks.

function benchLatency() {
  const { root, env } = sandbox('land');
  const bare = makeRemote(root, env);
  const envA = { ...env, ABCD_SESSION: 'lander' };
  const a = cloneFor(bare, join(root, 'a'), envA, 'lander@example.com');
  const r = cloneFor(bare, join(root, 'raw'), env, 'raw@example.com');
  abcd(a, ['status'], envA); // the record cache exists before anything is measured
  const logger = gitLogger(root);
  // Every work branch, abcd's and raw git's, starts from the first commit, so every rebase
  // replays one commit onto a main that has moved on since (by all the lands before it).
  const base = git(a, ['rev-parse', 'HEAD'], envA).stdout.trim();

  /** @type {{ land: number[], raw: number[] } & Record<keyof RawSteps, number[]>} */
  const t = { land: [], raw: [], node: [], fetch: [], add: [], rebase: [], push: [], remove: [] };
  let lastJson;

  /** @type {(rep: number, e: Env) => number} */
  const landOnce = (rep, e) => {
    const item = `lat-${rep}`;
    abcd(a, ['reserve', item], envA);
    git(a, ['checkout', '-q', '-B', `work/${item}`, base], envA);
    writeFileSync(join(a, `${item}.txt`), `${item}\n`);
    git(a, ['add', '.'], envA);
    git(a, ['commit', '-q', '-m', item], envA);
    const res = abcd(a, ['land', item, '--json'], e);
    lastJson = JSON.parse(res.stdout);
    if (lastJson.checks.length !== 0 || lastJson.attempts !== 1) throw new Error(`unexpected land: ${res.stdout}`);
    return res.ms;
  };

  // The same work by hand: node start, fetch main, rebase the work in a throwaway worktree, push
  // main with a lease on the tip it was rebased onto, remove the worktree.
  /** @type {(rep: number) => RawSteps} */
  const rawOnce = (rep) => {
    const branch = `raw/r${rep}`;
    git(r, ['checkout', '-q', '-B', branch, base], env);
    writeFileSync(join(r, `raw-${rep}.txt`), `${rep}\n`);
    git(r, ['add', '.'], env);
    git(r, ['commit', '-q', '-m', `raw ${rep}`], env);
    const wt = join(root, `raw-wt-${rep}`);
    const node = run(NODE, ['-e', '0'], { env }).ms;
    const fetch = git(r, ['fetch', '-q', '--no-tags', 'origin', 'main'], env).ms;
    const main = git(r, ['rev-parse', 'origin/main'], env).stdout.trim();
    const add = git(r, ['worktree', 'add', '--detach', '-q', wt, branch], env).ms;
    const rebase = git(wt, ['rebase', '-q', main], env).ms;
    const push = git(
      wt,
      ['push', '-q', '--porcelain', `--force-with-lease=refs/heads/main:${main}`, 'origin', 'HEAD:refs/heads/main'],
      env,
    ).ms;
    const remove = git(r, ['worktree', 'remove', '--force', wt], env).ms;
    return { node, fetch, add, rebase, push, remove };
  };

  // The first run is counted through the git wrapper, not timed.
  landOnce(0, logger.env(envA));
  const counts = classify(logger.take());
  rawOnce(0);
  for (let rep = 1; rep <= REPS; rep++) {
    // Alternate which goes first, so neither always meets a warmer page cache.
    let landMs;
    let s;
    if (rep % 2) {
      landMs = landOnce(rep, envA);
      s = rawOnce(rep);
    } else {
      s = rawOnce(rep);
      landMs = landOnce(rep, envA);
    }
    t.land.push(landMs);
    for (const k of RAW_STEPS) t[k].push(s[k]);
    t.raw.push(RAW_STEPS.reduce((sum, k) => sum + s[k], 0));
  }
  const landMs = median(t.land);
  const floorMs = median(t.raw);
  const breakdown = whereLandTimeGoes(a, envA, root, base, floorMs);
  const parts = RAW_STEPS.map((k) => `${k} ${ms(median(t[k]))}`).join(' + ');
  const rows = [
    [
      '`abcd land <item>`, empty queue, no checks',
      String(counts.total),
      String(counts.trips),
      String(counts.local),
      counts.cmds.join(', '),
      ms(landMs),
      ms(floorMs),
      ratio(landMs, floorMs),
      `≤ 2x: ${mark(landMs / floorMs <= 2)}`,
    ],
  ];
  target(`land, empty queue, no checks (${counts.trips} round trips, ${counts.total} git processes)`, landMs, 'raw git floor', floorMs, 2);
  const md = [
    '## 5. `abcd land` latency, empty queue',
    '',
    `One session holds the item, one commit on a work branch based on the first commit, so every rebase replays it onto a main that has moved on; no \`.abcd/config.json\`. ` +
      `Local \`file://\` remote. Counts from the \`git\` wrapper (one run); times are medians of ${REPS} lands, a fresh item each.`,
    `Raw git floor, comparable clone, same run, interleaved (medians): ${parts}; median of the per-run sums ${ms(floorMs)}. ` +
      'That is: `node -e 0`, `git fetch origin main`, `git worktree add --detach`, `git rebase` onto the fetched tip, ' +
      '`git push` of main with a lease on that tip, `git worktree remove`.',
    'abcd also does what the floor does not: the enqueue push (claim renewal + queue entry + work branch, atomic and fenced), ' +
      "re-reading the queue before landing, and the landing push carries the claim's `done` generation and the entry's removal.",
    '',
    table(['command', 'git spawns', 'round trips', 'local', 'git commands, in order', 'abcd', 'raw git floor', 'ratio', 'goal'], rows),
    '',
    breakdown,
    '',
  ].join('\n');
  return { md, floorMs, landMs };
}

/**
 * One more land under GIT_TRACE2_EVENT: time per git command, and what happens between them.
 * @param {string} a
 * @param {Env} envA
 * @param {string} root
 * @param {string} base
 * @param {number} floorMs
 */
function whereLandTimeGoes(a, envA, root, base, floorMs) {
  const item = 'lat-traced';
  abcd(a, ['reserve', item], envA);
  git(a, ['checkout', '-q', '-B', `work/${item}`, base], envA);
  writeFileSync(join(a, `${item}.txt`), `${item}\n`);
  git(a, ['add', '.'], envA);
  git(a, ['commit', '-q', '-m', item], envA);
  const trace = join(root, 'land-trace2.json');
  const t0 = Date.now();
  const total = abcd(a, ['land', item], { ...envA, GIT_TRACE2_EVENT: trace }).ms;
  const t1 = Date.now();
  /** @type {Map<string, { name: string, start: number, end?: number }>} */
  const procs = new Map(); // by sid
  for (const line of readFileSync(trace, 'utf8').split('\n').filter(Boolean)) {
    const e = JSON.parse(line);
    if (e.sid.includes('/')) continue; // a child of abcd's git: counted in its parent
    if (e.event === 'start') procs.set(e.sid, { name: subcommand(e.argv.slice(1).join(' ')), start: Date.parse(e.time) });
    const started = procs.get(e.sid);
    if (e.event === 'exit' && started) started.end = Date.parse(e.time);
  }
  /** @type {{ name: string, start: number, end: number }[]} */
  const list = [];
  for (const p of procs.values()) if (p.end) list.push({ ...p, end: p.end });
  list.sort((x, y) => x.start - y.start);
  /** @type {Map<string, { n: number, ms: number }>} */
  const byName = new Map();
  for (const p of list) {
    const v = byName.get(p.name) ?? { n: 0, ms: 0 };
    byName.set(p.name, { n: v.n + 1, ms: v.ms + (p.end - p.start) });
  }
  // Wall time covered by at least one git process (rev-parse and config run in parallel).
  let covered = 0;
  let until = -Infinity;
  for (const p of list) {
    const s = Math.max(p.start, until);
    if (p.end > s) covered += p.end - s;
    until = Math.max(until, p.end);
  }
  let gap = { ms: 0, after: '?', before: '?', nth: 0 };
  for (let k = 1; k < list.length; k++) {
    const [prev, cur] = [list[k - 1], list[k]];
    if (!prev || !cur) continue;
    const g = cur.start - Math.max(...list.slice(0, k).map((p) => p.end));
    if (g > gap.ms)
      gap = {
        ms: g,
        after: prev.name,
        before: cur.name,
        nth: list.slice(0, k + 1).filter((p) => p.name === cur.name).length,
      };
  }
  const before = list[0] ? list[0].start - t0 : 0;
  const after = list.length ? t1 - until : 0;
  const between = Math.max(0, t1 - t0 - covered - before - after);
  const nodeMs = median([0, 1, 2].map(() => run(NODE, ['-e', '0'], { env: envA }).ms));
  const rows = [...byName].sort((x, y) => y[1].ms - x[1].ms).map(([name, v]) => [`git ${name}${v.n > 1 ? ` (×${v.n})` : ''}`, ms(v.ms)]);
  rows.push(
    [`before the first git call (\`node -e 0\` alone: ${ms(nodeMs)}; the rest is module imports and argument parsing)`, ms(before)],
    [
      `between git calls, in abcd (record commits, decoding, spawning, awaits); the largest gap ${ms(gap.ms)}, ` +
        `before the ${ordinal(gap.nth)} \`${gap.before}\` (after \`${gap.after}\`)`,
      ms(between),
    ],
    ['after the last git call (rm of the worktree dir, output, exit)', ms(after)],
    ['**total (this traced run)**', `**${ms(total)}**`],
    [
      `if abcd itself took no time: \`node -e 0\` + the wall time its git processes cover (${ms(covered)})`,
      `${ms(nodeMs + covered)} = ${ratio(nodeMs + covered, floorMs)} the floor`,
    ],
  );
  return [
    `Where one more (traced) land spends its time: trace2 wall time of each git process abcd spawned (${list.length} in all), ` +
      'from its `start` to its `exit` event; the gaps are abcd itself.',
    '',
    table(['stage', 'time'], rows),
  ].join('\n');
}

const epochMs = () => performance.timeOrigin + performance.now();

/**
 * Like lib.mjs's gitLogger, with the time and session of each call: a bash wrapper (for
 * $EPOCHREALTIME, no extra process) first on PATH. take() returns [{t, session, argv, cmd}].
 * @param {string} root
 * @returns {{ env: (env: Env) => Env, take: () => { t: number, session: string, argv: string, cmd: string }[] }}
 */
function timedGitLogger(root) {
  const dir = join(root, 'timed-wrapper');
  mkdirSync(dir);
  const log = join(root, 'git-timed.log');
  const bash = run('sh', ['-c', 'command -v bash']).stdout.trim();
  const script = join(dir, 'git');
  writeFileSync(
    script,
    `#!${bash}\nprintf '%s\\t%s\\t%s\\n' "$EPOCHREALTIME" "$ABCD_SESSION" "$*" >> "$BENCH_GIT_LOG"\nexec '${REAL_GIT}' "$@"\n`,
  );
  chmodSync(script, 0o755);
  return {
    env: (env) => ({ ...env, PATH: `${dir}:${env.PATH}`, BENCH_GIT_LOG: log }),
    take() {
      let text = '';
      try {
        text = readFileSync(log, 'utf8');
      } catch {
        // no git ran since the last take: nothing logged
      }
      writeFileSync(log, '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [t, session = '', argv = ''] = l.split('\t');
          return { t: Number(t) * 1000, session, argv, cmd: subcommand(argv) };
        });
    },
  };
}

/** @type {(n: number) => string} */
const ordinal = (n) => (n === 1 ? 'first' : n === 2 ? 'second' : n === 3 ? 'third' : `${n}th`);

// ---------------------------------------------------------------------------------------------
// 6. Throughput.

/** @param {number} floorMs */
async function benchThroughput(floorMs) {
  const ceiling = 60_000 / (1000 + floorMs);
  /** @type {string[][]} */
  const rows = [];
  /** @type {string[][]} */
  const sessionRows = [];
  /** @type {string[]} */
  const notes = [];
  for (const n of SESSIONS) {
    const res = await throughputOnce(n);
    const items = n * ITEMS_PER_SESSION;
    const perMin = (res.landed / res.wallMs) * 60_000;
    const sessionMs = res.sessions.map((s) => s.end - s.start);
    const ends = res.sessions.map((s) => s.end - res.t0);
    const allLanded = res.sessions.every((s) => s.items.every((i) => i.code === 0));
    const inTime = res.sessions.every((s) => s.items.every((i) => i.landMs < WAIT_MS));
    const lands = res.sessions.flatMap((s) => s.items);
    const retests = lands.filter((i) => (i.json?.attempts ?? 1) > 1).length;
    const landMs = lands.map((i) => i.landMs);
    rows.push([
      String(n),
      `${res.landed}/${items}`,
      ms(res.wallMs),
      `${perMin.toFixed(1)} (${Math.round((100 * perMin) / ceiling)}%)`,
      res.landingGaps.length ? `${ms(median(res.landingGaps))} / ${ms(Math.max(...res.landingGaps))}` : '–',
      n > 1 && res.idle.length ? `${ms(median(res.idle))} + ${ms(median(res.busy))}` : '–',
      `${ms(median(landMs))} / ${ms(Math.max(...landMs))}`,
      `${ms(Math.min(...ends))} / ${ms(Math.max(...ends))}`,
      `${(Math.max(...sessionMs) / Math.min(...sessionMs)).toFixed(2)}x (${ms(Math.max(...ends) - Math.min(...ends))}` +
        `${n > 1 && res.landingGaps.length ? `; FIFO: ${ms((n - 1) * median(res.landingGaps))}` : ''})`,
      String(retests),
      res.inversions === null ? '?' : String(res.inversions),
      (res.gitSpawns / Math.max(1, res.landed)).toFixed(0),
      (res.fetches / Math.max(1, res.landed)).toFixed(1),
      `${mark(allLanded && inTime)}`,
    ]);
    sessionRows.push([
      String(n),
      res.sessions
        .map((s, i) => `s${i}: ${ms(s.end - s.start)} (${s.items.map((x) => (x.code === 0 ? ms(x.landMs) : `exit ${x.code}`)).join(', ')})`)
        .join('; '),
    ]);
    for (const s of res.sessions)
      for (const i of s.items) if (i.code !== 0) notes.push(`- ${n} sessions, ${i.item}: exit ${i.code}: ${i.why}`);
  }
  return [
    '## 6. `abcd land` throughput, concurrent sessions on one computer',
    '',
    `Each session: its own clone, HOME and \`ABCD_SESSION\`; all share one \`ABCD_MACHINE_DIR\` with \`ABCD_GATE_SLOTS=2\`. ` +
      `\`.abcd/config.json\` on main: \`{"land":{"checks":"${CHECK}"}}\`. Each session lands ${ITEMS_PER_SESSION} items in a row ` +
      `(reserve, commit a new file on a work branch, \`abcd land <item> --wait ${WAIT}\`), all sessions started at once. ` +
      'Items/minute = items landed / wall time from the first start to the last session done (reserve and commit included). ' +
      'git spawns and fetches counted through the `git` wrapper over the whole run (queue polling included).',
    `Serial ceiling: every landing is tested on main's tip, so lands cannot overlap; with a ${CHECK.split(' ')[1]} s check and the ` +
      `raw git floor of section 5 (${ms(floorMs)}) that is ${ceiling.toFixed(1)} items/minute. ` +
      `Between landings: the intervals at which main moved on the remote (watched every ${WATCH_MS} ms), against the ${CHECK.split(' ')[1]} s check; ` +
      'hand-off: from main moving to the next queue head starting its test (its `git worktree add`, timed by a wrapper); test-and-land: from there to main moving. ' +
      'Under strict first-in-first-out each session re-enqueues behind the others, so sessions finish one landing apart: (sessions − 1) × the interval.',
    '',
    table(
      [
        'sessions',
        'landed',
        'wall',
        'items/min (of the serial ceiling)',
        'between landings on main: median / max',
        'of which: hand-off + test-and-land (medians)',
        'one land: median / max',
        'sessions done: first / last',
        'session time max/min (spread of done times; strict FIFO would give)',
        're-tests',
        'out of queue order',
        'git spawns / item (reserve + land)',
        'fetches / item',
        `no starvation (all landed, each within --wait ${WAIT})`,
      ],
      rows,
    ),
    '',
    'Per session: its whole time (its lands in order).',
    '',
    table(['sessions', 'per session'], sessionRows),
    '',
    ...(notes.length ? ['Failures:', '', ...notes, ''] : []),
  ].join('\n');
}

/** @param {number} n */
async function throughputOnce(n) {
  /** @type {ReturnType<typeof timedGitLogger> | undefined} */
  let logger;
  const { env, bare, sessions } = landingRemote({
    name: `land-tp${n}`,
    config: { land: { checks: CHECK } },
    n,
    envOf: (e, _i, dir) => (logger ??= timedGitLogger(dir)).env({ ...e, ABCD_GATE_SLOTS: '2' }),
  });
  if (!logger) throw new Error('landingRemote made no session');
  logger.take();

  // Watches main on the remote (a file read, no process) to time the gaps between landings.
  const mainFile = join(bare, 'refs/heads/main');
  /** @type {number[]} */
  const moves = []; // epoch ms, like the wrapper's $EPOCHREALTIME
  let seen = readFileSync(mainFile, 'utf8');
  const watch = setInterval(() => {
    let now;
    try {
      now = readFileSync(mainFile, 'utf8');
    } catch {
      return; // mid-rename
    }
    if (now !== seen) {
      seen = now;
      moves.push(epochMs());
    }
  }, WATCH_MS);
  const t0 = performance.now();
  const e0 = epochMs();
  const results = await Promise.all(sessions.map((s) => sessionLoop(s)));
  const t1 = performance.now();
  clearInterval(watch);
  const gaps = moves.slice(1).map((m, k) => m - (moves[k] ?? m));
  const logged = logger.take();
  // BENCH_LAND_TRACE=<dir>: keep each run's timeline (git calls by session, main moves) for a closer look.
  if (process.env.BENCH_LAND_TRACE) {
    const lines = [...logged.map((l) => ({ ...l })), ...moves.map((t) => ({ t, session: '-', argv: 'MAIN MOVED' }))]
      .sort((x, y) => x.t - y.t)
      .map((l) => `${((l.t - e0) / 1000).toFixed(3)}\t${l.session}\t${l.argv}`);
    mkdirSync(process.env.BENCH_LAND_TRACE, { recursive: true });
    writeFileSync(join(process.env.BENCH_LAND_TRACE, `throughput-${n}.tsv`), lines.join('\n') + '\n');
  }
  const cmds = logged.map((l) => l.cmd);
  // Hand-off: from main moving to the next head starting its test (its `git worktree add`).
  const starts = logged.filter((l) => /(^| )worktree add /.test(l.argv)).map((l) => l.t);
  /** @type {number[]} */
  const idle = [];
  /** @type {number[]} */
  const busy = [];
  moves.forEach((moved, k) => {
    const following = moves[k + 1];
    const next = starts.find((t) => t > moved);
    if (next === undefined || (following !== undefined && next > following)) return;
    idle.push(next - moved);
    if (following !== undefined) busy.push(following - next);
  });

  // Landing order on main (first parent, oldest first) against the order the entries were enqueued.
  const log = git(bare, ['log', '--first-parent', '--reverse', '--format=%H', 'main'], env).stdout.trim().split('\n');
  const pos = new Map(log.map((h, k) => [h, k]));
  const landed = results.flatMap((s) => s.items).filter((i) => i.code === 0 && i.json);
  let inversions = 0;
  for (const x of landed) {
    for (const y of landed) {
      const ex = Date.parse(x.json.enqueuedAt);
      const ey = Date.parse(y.json.enqueuedAt);
      if (ex < ey && (pos.get(x.json.tip) ?? -1) > (pos.get(y.json.tip) ?? -1)) inversions++;
    }
  }
  const missing = landed.filter((i) => !pos.has(i.json.tip)).length;
  return {
    t0,
    wallMs: t1 - t0,
    landed: landed.length - missing,
    sessions: results,
    inversions: missing ? null : inversions,
    gitSpawns: cmds.length,
    firstLandingMs: moves[0] !== undefined ? moves[0] - e0 : null,
    idle,
    busy,
    landingGaps: gaps,
    fetches: cmds.filter((c) => c === 'fetch').length,
  };
}

/** @param {LandingSession} s */
async function sessionLoop(s) {
  const start = performance.now();
  /** @type {{ item: string, code: number | null, landMs: number, json: any, why: string }[]} the json: the land's --json answer, read by path */
  const items = [];
  for (let k = 0; k < ITEMS_PER_SESSION; k++) {
    const item = `s${s.i}-i${k}`;
    const { r, json } = await landOne(s, { item, file: `${item}.txt`, wait: WAIT });
    items.push({
      item,
      code: r.code,
      landMs: r.ms,
      json: r.code === 0 ? json : undefined,
      why: r.code === 0 ? '' : ((json?.refusal?.message ?? (r.stderr || r.stdout)).split('\n')[0] ?? ''),
    });
  }
  return { start, end: performance.now(), items };
}
