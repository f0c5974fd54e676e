#!/usr/bin/env node
// Interleaved A/B of `abcd land <item>` (empty queue, no checks) between two builds, with the
// raw git floor of bench/land.mjs in the same run. Not part of run.mjs: a tool for comparing a
// change against main while working on it.
//
//   node bench/land-ab.mjs <dir-with-bin/abcd A> <dir B> [reps=15]
//
// Prints each build's git argv for one land, then medians (land A, land B, floor) and the load.
// AB_ON_TIP=1 starts each work branch on main's tip instead of the first commit.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { cloneFor, cleanupAll, git, gitLogger, makeRemote, median, ms, NODE, run, sandbox } from './lib.mjs';

/** @import { Env } from './lib.mjs' */
/** @typedef {'A' | 'B'} Build */
/** @typedef {(which: Build, e?: Env, nodeArgs?: string[]) => number} LandOnce */

const [dirA, dirB, repsArg] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error('usage: node bench/land-ab.mjs <build A> <build B> [reps]');
  process.exit(2);
}
const REPS = Number(repsArg ?? 15);
const ON_TIP = process.env.AB_ON_TIP === '1';
const bins = { A: join(resolve(dirA), 'bin/abcd'), B: join(resolve(dirB), 'bin/abcd') };
/** The one-minute load average, as printed. */
const load = () => (loadavg()[0] ?? 0).toFixed(1);
const loadBefore = load();

try {
  const { root, env } = sandbox('land-ab');
  const bare = makeRemote(root, env);
  const envA = { ...env, ABCD_SESSION: 'lander' };
  const a = cloneFor(bare, join(root, 'a'), envA, 'lander@example.com');
  const r = cloneFor(bare, join(root, 'raw'), env, 'raw@example.com');
  const base = git(a, ['rev-parse', 'HEAD'], envA).stdout.trim();
  run(NODE, [bins.A, 'status'], { cwd: a, env: envA });
  const logger = gitLogger(root);
  let n = 0;
  // Epoch ms at the last land's spawn: timeline() counts from it.
  let startedAt = 0;
  /** @type {LandOnce} */
  const landOnce = (which, e = envA, nodeArgs = []) => {
    const item = `ab-${n++}`;
    run(NODE, [bins[which], 'reserve', item], { cwd: a, env: envA });
    // AB_ON_TIP=1: the work branch starts on main's tip (no replay needed), else on the first commit.
    if (ON_TIP) git(a, ['fetch', '-q', 'origin', 'main'], envA);
    git(a, ['checkout', '-q', '-B', `work/${item}`, ON_TIP ? 'origin/main' : base], envA);
    writeFileSync(join(a, `${item}.txt`), `${item}\n`);
    git(a, ['add', '.'], envA);
    git(a, ['commit', '-q', '-m', item], envA);
    startedAt = performance.timeOrigin + performance.now();
    const res = run(NODE, [...nodeArgs, bins[which], 'land', item, '--json'], { cwd: a, env: e });
    const out = JSON.parse(res.stdout);
    if (out.attempts !== 1 || out.checks.length) throw new Error(`unexpected land: ${res.stdout}`);
    return res.ms;
  };
  const rawOnce = () => {
    const rep = n++;
    const branch = `raw/r${rep}`;
    if (ON_TIP) git(r, ['fetch', '-q', 'origin', 'main'], env);
    git(r, ['checkout', '-q', '-B', branch, ON_TIP ? 'origin/main' : base], env);
    writeFileSync(join(r, `raw-${rep}.txt`), `${rep}\n`);
    git(r, ['add', '.'], env);
    git(r, ['commit', '-q', '-m', `raw ${rep}`], env);
    const wt = join(root, `raw-wt-${rep}`);
    let t = run(NODE, ['-e', '0'], { env }).ms;
    t += git(r, ['fetch', '-q', '--no-tags', 'origin', 'main'], env).ms;
    const main = git(r, ['rev-parse', 'origin/main'], env).stdout.trim();
    // On main's tip the floor is a fast-forward push: nothing to replay, no worktree.
    if (ON_TIP)
      return (
        t +
        git(r, ['push', '-q', '--porcelain', `--force-with-lease=refs/heads/main:${main}`, 'origin', `${branch}:refs/heads/main`], env).ms
      );
    t += git(r, ['worktree', 'add', '--detach', '-q', wt, branch], env).ms;
    t += git(wt, ['rebase', '-q', main], env).ms;
    t += git(wt, ['push', '-q', '--porcelain', `--force-with-lease=refs/heads/main:${main}`, 'origin', 'HEAD:refs/heads/main'], env).ms;
    t += git(r, ['worktree', 'remove', '--force', wt], env).ms;
    return t;
  };
  for (const which of /** @type {const} */ (['A', 'B'])) {
    logger.take();
    landOnce(which, logger.env(envA));
    const lines = logger.take();
    console.log(`${which}: ${lines.length} git processes`);
    for (const l of lines) console.log(`  ${l.replace(/^-C \S+ /, '').slice(0, 160)}`);
  }
  // AB_PROF=<dir>: one more land of B under the V8 profiler, its .cpuprofile written there.
  if (process.env.AB_PROF) landOnce('B', envA, ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${resolve(process.env.AB_PROF)}`]);
  if (process.env.AB_TRACE)
    for (const which of /** @type {const} */ (['A', 'B'])) timeline(which, { landOnce, startedAt: () => startedAt }, root, envA);
  /** @type {Record<Build | 'floor', number[]>} */
  const t = { A: [], B: [], floor: [] };
  /** @type {(Build | 'floor')[][]} Rotated so no side always follows the other. */
  const orders = [
    ['A', 'B', 'floor'],
    ['B', 'floor', 'A'],
    ['floor', 'A', 'B'],
  ];
  for (let i = 0; i < REPS; i++) {
    for (const k of orders[i % orders.length] ?? []) t[k].push(k === 'floor' ? rawOnce() : landOnce(k));
  }
  const f = median(t.floor);
  for (const k of /** @type {const} */ (['A', 'B', 'floor']))
    console.log(`${k}: median ${ms(median(t[k]))} (${(median(t[k]) / f).toFixed(2)}x floor) [${t[k].map((x) => Math.round(x)).join(' ')}]`);
  console.log(`B/A ${(median(t.B) / median(t.A)).toFixed(3)}; reps ${REPS}; load average ${loadBefore} before, ${load()} after`);
} finally {
  cleanupAll();
}

/**
 * One land under GIT_TRACE2_EVENT: each git process's start offset, its wall time, and the gap before it.
 * @param {Build} which
 * @param {{ landOnce: LandOnce, startedAt: () => number }} lands
 * @param {string} root
 * @param {Env} envA
 */
function timeline(which, { landOnce, startedAt }, root, envA) {
  const trace = join(root, `trace-${which}.json`);
  writeFileSync(trace, '');
  const total = landOnce(which, { ...envA, GIT_TRACE2_EVENT: trace });
  const t0 = startedAt();
  /** @type {Map<string, { argv: string, start: number, end: number }>} */
  const procs = new Map();
  for (const line of readFileSync(trace, 'utf8').split('\n').filter(Boolean)) {
    const e = JSON.parse(line);
    if (e.sid.includes('/')) continue;
    // Until its exit event, a process ends where it starts.
    if (e.event === 'start')
      procs.set(e.sid, { argv: e.argv.slice(1).join(' ').slice(0, 70), start: Date.parse(e.time), end: Date.parse(e.time) });
    const p = procs.get(e.sid);
    if (e.event === 'exit' && p) p.end = Date.parse(e.time);
  }
  let until = t0;
  console.log(`${which} timeline (total ${Math.round(total)} ms; times from the land's spawn):`);
  for (const p of [...procs.values()].sort((x, y) => x.start - y.start)) {
    console.log(
      `  +${String(Math.round(p.start - t0)).padStart(4)} gap ${String(Math.round(p.start - until)).padStart(4)} run ${String(p.end - p.start).padStart(3)}  ${p.argv}`,
    );
    until = Math.max(until, p.end);
  }
  console.log(`  after the last: ${Math.round(t0 + total - until)} ms`);
}
