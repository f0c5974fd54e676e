#!/usr/bin/env node
// Lanes: what a cycle costs besides the agent, against raw git doing the same fetch,
// worktree, commit, push and land (fast-forward push of main) in the same run; and drain
// throughput with a no-op agent (one small commit) for 1, 2 and 4 lanes.
//   node bench/lanes.mjs            (after npm run build)
//   node bench/lanes.mjs --cycle    (the cycle's overhead and git processes only, no throughput)
//   node bench/lanes.mjs --argv     (also print each git argv of one cycle)
//   node bench/lanes.mjs --cycle --against <dir>   (also another build, e.g. a worktree of main
//                                   after npm run build, interleaved with this one: a before/after)
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { abcd, classify, cleanupAll, NODE, cloneFor, git, gitLogger, makeRemote, median, ms, ratio, run, sandbox, table } from './lib.mjs';

/** @import { Env, GitLogger } from './lib.mjs' */
/** @typedef {{ root: string, env: Env, bare: string, dir: string, logger?: GitLogger }} ItemRemote */

const ROUNDS = 5;
const NOOP_AGENT = 'echo "$ABCD_ITEM" > "out-$(printf %s "$ABCD_ITEM" | tr : -).txt" && git add -A && git commit -qm "agent: $ABCD_ITEM"';

/**
 * A remote whose main holds `n` ready items, and a clone set up for abcd.
 * @param {string} name
 * @param {number} n
 * @returns {ItemRemote}
 */
function itemRemote(name, n) {
  const { root, env } = sandbox(name);
  const bare = makeRemote(root, env);
  const seed = join(root, 'items');
  git(root, ['clone', '-q', `file://${bare}`, seed], env);
  mkdirSync(join(seed, '.abcd/items'), { recursive: true });
  for (let i = 0; i < n; i++) writeFileSync(join(seed, `.abcd/items/item-${i}.md`), `---\ntitle: item ${i}\nstatus: ready\n---\nbench\n`);
  git(seed, ['add', '.'], env);
  git(seed, ['-c', 'user.name=seed', '-c', 'user.email=seed@example.com', 'commit', '-q', '-m', 'items'], env);
  git(seed, ['push', '-q', 'origin', 'main'], env);
  const dir = cloneFor(bare, join(root, 'clone'), env);
  return { root, env: { ...env, ABCD_GATE_SLOTS: '4' }, bare, dir };
}

/**
 * Raw git doing a cycle's git work: fetch main, a worktree, one commit, push the branch, land it, clean up.
 * @param {ItemRemote} r
 * @param {number} i
 */
function rawCycle(r, i) {
  const t0 = performance.now();
  git(r.dir, ['fetch', '-q', 'origin', 'main'], r.env);
  const wt = join(r.root, `raw-wt-${i}`);
  git(r.dir, ['worktree', 'add', '-q', '--detach', wt, 'FETCH_HEAD'], r.env);
  writeFileSync(join(wt, `raw-${i}.txt`), `${i}\n`);
  git(wt, ['add', '-A'], r.env);
  git(wt, ['commit', '-q', '-m', `raw ${i}`], r.env);
  git(wt, ['push', '-q', 'origin', `HEAD:refs/heads/work/raw-${i}`], r.env);
  git(wt, ['push', '-q', 'origin', 'HEAD:main', `:refs/heads/work/raw-${i}`], r.env);
  git(r.dir, ['worktree', 'remove', '--force', wt], r.env);
  return performance.now() - t0;
}

/** @type {string[]} */
const copies = [];
/**
 * A private copy of another build (bin/, dist/, package.json), so a rebuild there cannot change it mid-run.
 * @param {string} from
 */
function copyBuild(from) {
  const to = mkdtempSync(join(tmpdir(), 'abcd-bench-other-'));
  copies.push(to);
  for (const p of ['bin', 'dist', 'package.json']) cpSync(join(from, p), join(to, p), { recursive: true });
  symlinkSync(join(from, 'node_modules'), join(to, 'node_modules'));
  return join(to, 'bin/abcd');
}

/**
 * One `abcd build` cycle (this build, or `bin`), wall time minus the agent's own time (as abcd measured it).
 * @param {ItemRemote} r
 * @param {number} i
 * @param {string} [bin]
 */
function laneCycle(r, i, bin) {
  const t0 = performance.now();
  const args = ['build', `item-${i}`, '--json', '--sandbox', 'bwrap', '--agent', NOOP_AGENT];
  const out = bin ? run(NODE, [bin, ...args], { cwd: r.dir, env: r.env }) : abcd(r.dir, args, r.env);
  const wall = performance.now() - t0;
  const cycle = lastJsonLine(out.stdout).record.cycles[0];
  if (cycle.outcome !== 'landed') throw new Error(`bench cycle did not land: ${JSON.stringify(cycle)}`);
  return { wall, overhead: wall - cycle.agentMs, agent: cycle.agentMs };
}

/**
 * The last line of a --json stream: a verb's final answer, read by path.
 * @param {string} stdout
 * @returns {any}
 */
function lastJsonLine(stdout) {
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
}

/**
 * The git processes and round trips of one raw cycle and one abcd cycle (untimed: the wrapper costs a shell each).
 * @param {ItemRemote} r
 * @param {number} i
 * @param {boolean} showArgv
 * @param {string} [bin]
 */
function countCycles(r, i, showArgv, bin) {
  r.logger ??= gitLogger(r.root);
  const logger = r.logger;
  const env = r.env;
  r.env = logger.env(env);
  try {
    logger.take();
    rawCycleLogged(r, i);
    const raw = classify(logger.take());
    laneCycle(r, i, bin);
    const lines = logger.take();
    if (showArgv) console.error(lines.join('\n'));
    return { raw, lane: classify(lines) };
  } finally {
    r.env = env;
  }
}

/**
 * rawCycle with git found on PATH (the logger's wrapper), not the real git's absolute path.
 * @param {ItemRemote} r
 * @param {number} i
 */
function rawCycleLogged(r, i) {
  /** @type {(cwd: string, args: string[]) => unknown} */
  const g = (cwd, args) => run('git', ['-C', cwd, ...args], { env: r.env });
  g(r.dir, ['fetch', '-q', 'origin', 'main']);
  const wt = join(r.root, `raw-wt-${i}`);
  g(r.dir, ['worktree', 'add', '-q', '--detach', wt, 'FETCH_HEAD']);
  writeFileSync(join(wt, `raw-${i}.txt`), `${i}\n`);
  g(wt, ['add', '-A']);
  g(wt, ['commit', '-q', '-m', `raw ${i}`]);
  g(wt, ['push', '-q', 'origin', `HEAD:refs/heads/work/raw-${i}`]);
  g(wt, ['push', '-q', 'origin', 'HEAD:main', `:refs/heads/work/raw-${i}`]);
  g(r.dir, ['worktree', 'remove', '--force', wt]);
}

/** @param {{ cycleOnly?: boolean, showArgv?: boolean, against?: string, rounds?: number }} [o] */
export async function benchLanes({ cycleOnly = false, showArgv = false, against, rounds = ROUNDS } = {}) {
  const other = against ? copyBuild(against) : undefined;
  const r = itemRemote('lanes-cycle', 2 * rounds + 2);
  /** @type {number[]} */
  const raw = [];
  /** @type {ReturnType<typeof laneCycle>[]} */
  const lane = [];
  /** @type {ReturnType<typeof laneCycle>[]} */
  const prev = [];
  /** The one-minute load average. */
  const load = () => (loadavg()[0] ?? 0).toFixed(2);
  const loadBefore = load();
  // Raw and abcd cycles (and the other build's) interleaved, so all see the same machine.
  for (let i = 0; i < rounds; i++) {
    raw.push(rawCycle(r, i));
    lane.push(laneCycle(r, i));
    if (other) prev.push(laneCycle(r, rounds + i, other));
  }
  const counts = countCycles(r, 2 * rounds, showArgv);
  const prevCounts = other ? countCycles(r, 2 * rounds + 1, false, other) : undefined;
  const rawMed = median(raw);
  const overhead = median(lane.map((l) => l.overhead));
  /** @type {(c: ReturnType<typeof classify>) => string} */
  const procs = (c) => `${c.total} git (${c.trips} round trips)`;
  const rows = [
    ['raw git: fetch, worktree, commit, push, land, remove', ms(rawMed), '1.00x', procs(counts.raw)],
    ['abcd build: one cycle, all but the agent', ms(overhead), ratio(overhead, rawMed), procs(counts.lane)],
    ['  (the no-op agent itself, in bubblewrap)', ms(median(lane.map((l) => l.agent))), '', ''],
  ];
  if (prevCounts) {
    const was = median(prev.map((l) => l.overhead));
    rows.splice(2, 0, [`the same cycle, ${against}`, ms(was), ratio(was, rawMed), procs(prevCounts.lane)]);
  }
  const head = [
    `### Lanes: one cycle's overhead (median of ${rounds}, interleaved; load average ${loadBefore} -> ${load()}) against raw git in the same run (target <= 2x)`,
    '',
    table(['what', 'median', 'ratio', 'git processes'], rows),
  ];
  if (cycleOnly) return head.join('\n');
  /** @type {string[][]} */
  const through = [];
  const N = 12;
  // A no-op agent measures the lanes and the land queue alone; a 2 s agent, what lanes are for.
  for (const { agent, label } of [
    { agent: NOOP_AGENT, label: 'no-op' },
    { agent: `sleep 2; ${NOOP_AGENT}`, label: '2 s agent' },
  ]) {
    for (const lanes of [1, 2, 4]) {
      const t = itemRemote(`lanes-drain-${lanes}`, N);
      const t0 = performance.now();
      const out = abcd(t.dir, ['drain', '--json', '--lanes', String(lanes), '--sandbox', 'bwrap', '--agent', agent], t.env, { ok: [0, 3] });
      const wall = performance.now() - t0;
      /** @type {{ outcome: string }[]} */
      const cycles = lastJsonLine(out.stdout).record.cycles;
      const landed = cycles.filter((c) => c.outcome === 'landed').length;
      through.push([label, String(lanes), `${landed}/${N}`, ms(wall), `${((landed / wall) * 60_000).toFixed(1)}`]);
    }
  }
  return [
    ...head,
    '',
    `### Lanes: drain throughput, ${N} items, agent = one small commit (after 2 s of sleep in the second half), under bubblewrap`,
    '',
    table(['agent', 'lanes', 'landed', 'wall', 'items/min'], through),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    /** @type {(name: string) => string | undefined} */
    const flag = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
    console.log(
      await benchLanes({
        cycleOnly: process.argv.includes('--cycle'),
        showArgv: process.argv.includes('--argv'),
        against: flag('--against'),
        rounds: Number(flag('--rounds') ?? ROUNDS),
      }),
    );
  } finally {
    cleanupAll();
    for (const d of copies) rmSync(d, { recursive: true, force: true });
  }
}
