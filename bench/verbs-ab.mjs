#!/usr/bin/env node
// Builds side by side: every everyday verb of each build on an empty remote and at 1,000
// claims, `--help`, and `land` with an empty queue, each against its raw floor measured in the
// same repetition, the builds in a rotating order. Not part of run.mjs: a tool for deciding
// whether a change earns its place (docs/performance.md), as entry-ab.mjs is for start-up.
//
//   node bench/verbs-ab.mjs [--reps N] <label>=<dir with bin/abcd and dist/> ...
//
// Prints, per build, the median time and the median of the per-repetition ratios to the floor,
// in wall time and in CPU time (user + system of abcd and every git it waited for, through
// /usr/bin/time: on a machine shared with other work the steadier figure), and the git
// processes each verb started (one counted run through a git wrapper).
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import {
  classify,
  cleanupAll,
  cloneFor,
  fastImportClaims,
  git,
  gitLogger,
  makeRemote,
  median,
  ms,
  NODE,
  RAW_SPEC,
  REAL_GIT,
  run,
  sandbox,
  table,
} from './lib.mjs';

/** @import { Env } from './lib.mjs' */

const args = process.argv.slice(2);
let reps = 9;
/** @type {{ label: string, bin: string }[]} */
const builds = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--reps') reps = Number(args[++i]);
  else {
    const [label, dir] = String(args[i]).split('=');
    if (!label || !dir) throw new Error('usage: node bench/verbs-ab.mjs [--reps N] <label>=<dir> ...');
    builds.push({ label, bin: join(resolve(dir), 'bin/abcd') });
  }
}
if (!builds.length) throw new Error('name at least one build: <label>=<dir>');

const load = () => (loadavg()[0] ?? 0).toFixed(1);
const loadBefore = load();
const VERBS = ['reserve', 'renew', 'push', 'release', 'announce', 'status'];
const WRITES = new Set(['reserve', 'renew', 'push', 'release', 'announce']);

/** @typedef {{ node: number, fetch: number, push: number }} Floor */
/** @typedef {{ name: string, dir: string, env: Env, floor: (Floor & { cpu: Floor })[] }} Place */

/** @type {(name: string, claims: number) => Place} */
function place(name, claims) {
  const { root, env } = sandbox(`ab-${name}`);
  const bare = makeRemote(root, env);
  if (claims) fastImportClaims(bare, claims, env);
  const e = { ...env, ABCD_SESSION: 'alice' };
  const dir = cloneFor(bare, join(root, 'a'), e, 'alice@example.com');
  git(dir, ['fetch', '-q', 'origin', RAW_SPEC], e); // the raw floor's refs exist: its fetch is a no-op, as abcd's is
  return { name, dir, env: e, floor: [] };
}

/** CPU time (user + system) of the last `timed` command and the children it waited for, in ms. */
let lastCpu = 0;
/**
 * Runs a command under /usr/bin/time: answers its wall time and keeps its CPU time in lastCpu.
 * CPU time is the figure a machine shared with other work disturbs least.
 * @type {(cmd: string, argv: string[], o: { cwd?: string, env?: Env }) => number}
 */
function timed(cmd, argv, o) {
  const r = run('/usr/bin/time', ['-f', '@cpu %U %S', cmd, ...argv], o);
  const m = /@cpu ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  lastCpu = m ? (Number(m[1]) + Number(m[2])) * 1000 : NaN;
  return r.ms;
}
/** @type {(b: { bin: string }, p: Place, argv: string[], e?: Env) => number} */
const abcdMs = (b, p, argv, e = p.env) => timed(NODE, [b.bin, ...argv], { cwd: p.dir, env: e });

/** One pass of every verb by one build in one place; answers each verb's time. */
function verbsOnce(
  /** @type {{ label: string, bin: string }} */ b,
  /** @type {Place} */ p,
  /** @type {string} */ tag,
  /** @type {Env} */ e = p.env,
) {
  const item = `ab-${b.label}-${tag}`;
  /** @type {Record<string, number>} */
  const t = {};
  /** @type {Record<string, number>} */
  const cpu = {};
  const step = (/** @type {string} */ v, /** @type {string[]} */ argv) => {
    t[v] = abcdMs(b, p, argv, e);
    cpu[v] = lastCpu;
  };
  step('reserve', ['reserve', item, '--ttl', '10m']);
  step('renew', ['renew', item]);
  git(p.dir, ['checkout', '-q', '-B', `work/${item}`, 'origin/main'], p.env);
  writeFileSync(join(p.dir, `${item}.txt`), `${item}\n`);
  git(p.dir, ['add', '.'], p.env);
  git(p.dir, ['commit', '-q', '-m', item], p.env);
  step('push', ['push', item]);
  step('release', ['release', item]);
  step('announce', ['announce', 'working', `ab ${tag}`]);
  abcdMs(b, p, ['status'], e); // sees the writes; the timed one has nothing new to read
  step('status', ['status']);
  return { t, cpu };
}

/** The raw floor in the same clone: node's start, a no-op fetch of the records, a leased push. */
function floorOnce(/** @type {Place} */ p, /** @type {string} */ tag) {
  const node = timed(NODE, ['-e', '0'], { env: p.env });
  const nodeCpu = lastCpu;
  const fetch = timed(REAL_GIT, ['-C', p.dir, 'fetch', '-q', 'origin', RAW_SPEC], { env: p.env });
  const fetchCpu = lastCpu;
  const oid = git(p.dir, ['commit-tree', '-m', `raw ${tag}`, 'HEAD^{tree}'], p.env).stdout.trim();
  const lease = `--force-with-lease=refs/heads/raw/${tag}:`;
  const push = timed(REAL_GIT, ['-C', p.dir, 'push', '-q', '--porcelain', lease, 'origin', `${oid}:refs/heads/raw/${tag}`], { env: p.env });
  p.floor.push({ node, fetch, push, cpu: { node: nodeCpu, fetch: fetchCpu, push: lastCpu } });
}

/** `land` of one reserved item with an empty queue and no checks. */
function landOnce(
  /** @type {{ label: string, bin: string }} */ b,
  /** @type {Place & { base: string }} */ p,
  /** @type {string} */ tag,
  /** @type {Env} */ e = p.env,
) {
  const item = `land-${b.label}-${tag}`;
  abcdMs(b, p, ['reserve', item]);
  git(p.dir, ['checkout', '-q', '-B', `work/${item}`, p.base], p.env);
  writeFileSync(join(p.dir, `${item}.txt`), `${item}\n`);
  git(p.dir, ['add', '.'], p.env);
  git(p.dir, ['commit', '-q', '-m', item], p.env);
  return abcdMs(b, p, ['land', item, '--json'], e);
}

/** The raw git a land does: fetch main, rebase in a worktree, push with a lease, remove it. */
function rawLandOnce(/** @type {Place & { base: string }} */ p, /** @type {string} */ tag) {
  const r = p.dir;
  git(r, ['checkout', '-q', '-B', `raw/l${tag}`, p.base], p.env);
  writeFileSync(join(r, `raw-${tag}.txt`), `${tag}\n`);
  git(r, ['add', '.'], p.env);
  git(r, ['commit', '-q', '-m', `raw ${tag}`], p.env);
  const wt = join(r, '..', `raw-wt-${tag}`);
  let t = run(NODE, ['-e', '0'], { env: p.env }).ms;
  t += git(r, ['fetch', '-q', '--no-tags', 'origin', 'main'], p.env).ms;
  const main = git(r, ['rev-parse', 'origin/main'], p.env).stdout.trim();
  t += git(r, ['worktree', 'add', '--detach', '-q', wt, `raw/l${tag}`], p.env).ms;
  t += git(wt, ['rebase', '-q', main], p.env).ms;
  t += git(wt, ['push', '-q', '--porcelain', `--force-with-lease=refs/heads/main:${main}`, 'origin', 'HEAD:refs/heads/main'], p.env).ms;
  t += git(r, ['worktree', 'remove', '--force', wt], p.env).ms;
  return t;
}

try {
  const places = [place('empty', 0), place('1k', 1000)];
  const lander = { ...place('land', 0), base: '' };
  lander.base = git(lander.dir, ['rev-parse', 'HEAD'], lander.env).stdout.trim();
  const logger = gitLogger(join(lander.dir, '..'));
  for (const p of [...places, lander]) for (const b of builds) abcdMs(b, p, ['status']); // caches exist
  // Counted once per build through the git wrapper, not timed.
  /** @type {Record<string, Record<string, number>>} */
  const counts = {};
  for (const b of builds) {
    counts[b.label] = {};
    const row = /** @type {Record<string, number>} */ (counts[b.label]);
    const p = /** @type {Place} */ (places[0]);
    verbsOnce(b, p, 'count', logger.env(p.env));
    const lines = logger.take();
    // verbsOnce's own git calls (checkout, add, commit) run outside the wrapper: every line is abcd's.
    row.all = classify(lines).total;
    landOnce(b, lander, 'count', logger.env(lander.env));
    row.land = classify(logger.take()).total;
  }
  /** @type {Record<string, Record<string, { ms: number[], ratio: number[], cpu: number[] }>>} */
  const out = {};
  const cell = (/** @type {string} */ l, /** @type {string} */ k) => {
    const byBuild = (out[l] ??= {});
    return (byBuild[k] ??= { ms: [], ratio: [], cpu: [] });
  };
  for (let rep = 0; rep < reps; rep++) {
    const order = builds.map((_, i) => builds[(i + rep) % builds.length]);
    for (const p of places) {
      floorOnce(p, `${rep}`);
      const f = /** @type {Floor & { cpu: Floor }} */ (p.floor.at(-1));
      for (const b of order) {
        if (!b) continue;
        const { t, cpu } = verbsOnce(b, p, `${rep}`);
        for (const v of VERBS) {
          const floor = f.node + f.fetch + (WRITES.has(v) ? f.push : 0);
          const floorCpu = f.cpu.node + f.cpu.fetch + (WRITES.has(v) ? f.cpu.push : 0);
          const c = cell(b.label, `${v} (${p.name})`);
          c.ms.push(t[v] ?? NaN);
          c.ratio.push((t[v] ?? NaN) / floor);
          c.cpu.push((cpu[v] ?? NaN) / floorCpu);
        }
      }
    }
    const node = timed(NODE, ['-e', '0'], {});
    const nodeCpu = lastCpu;
    for (const b of order) {
      if (!b) continue;
      const h = timed(NODE, [b.bin, '--help'], {});
      const c = cell(b.label, '--help');
      c.ms.push(h);
      c.ratio.push(h / node);
      c.cpu.push(lastCpu / nodeCpu);
    }
    const raw = rawLandOnce(lander, `${rep}`);
    for (const b of order) {
      if (!b) continue;
      const l = landOnce(b, lander, `${rep}`);
      const c = cell(b.label, 'land, empty queue');
      c.ms.push(l);
      c.ratio.push(l / raw);
    }
    process.stderr.write(`rep ${rep + 1}/${reps}, load ${load()}\n`);
  }
  const keys = Object.keys(out[builds[0]?.label ?? ''] ?? {});
  const rows = keys.map((k) => [
    k,
    ...builds.flatMap((b) => {
      const c = out[b.label]?.[k];
      const cpu = c?.cpu.length ? `, CPU ${median(c.cpu).toFixed(2)}x` : '';
      return c ? [`${ms(median(c.ms))} (${median(c.ratio).toFixed(2)}x${cpu})`] : ['-'];
    }),
  ]);
  rows.push(['git processes, the six verbs on the empty remote', ...builds.map((b) => String(counts[b.label]?.all))]);
  rows.push(['git processes, land', ...builds.map((b) => String(counts[b.label]?.land))]);
  console.log(
    `${new Date().toISOString().slice(0, 16)}Z, node ${process.version}, ${reps} reps, load ${loadBefore} before, ${load()} after.\n`,
  );
  console.log(table(['verb (place)', ...builds.map((b) => `${b.label}: median (median ratio to floor, wall; CPU)`)], rows));
} finally {
  cleanupAll();
}
