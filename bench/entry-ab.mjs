#!/usr/bin/env node
// Start-up A/B: the everyday verbs of several builds on several Node lines, in one sandbox,
// against `node -e 0` and a raw fetch. Not part of run.mjs: a tool for deciding whether a
// start-up change earns its place.
//
//   node bench/entry-ab.mjs [--runs N] [--ca] [--hyperfine] <label>=<dir with bin/abcd> ...
//
// For each build: `status --json` as agents call it (the fast path), and `--json status`, which
// the fast path hands to yargs (an option before the verb): the same verb, the same output.
// --ca sets NODE_EXTRA_CA_CERTS to the system CA bundle for every command. ABCD_BENCH_NODES
// names the Node majors (default 22,24,26). Prints one Markdown table of medians, and the
// paired differences (within each repetition) that decide: yargs route against fast path, and
// every build's `status --json` against the first build's.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { cleanupAll, cloneFor, makeRemote, median, ms, REAL_GIT, run, sandbox, table } from './lib.mjs';
import { benchMajors, nodeRuntimes } from './runtimes.mjs';
/** @import { Runtime } from './runtimes.mjs' */

/** @typedef {{ rt: Runtime, what: string, argv: [string, ...string[]] }} Cmd One command to time, on one runtime. */

const args = process.argv.slice(2);
let runs = 30;
let ca = false;
let useHyperfine = false;
/** @type {{ label: string, bin: string }[]} */
const builds = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') runs = Number(args[++i]);
  else if (args[i] === '--ca') ca = true;
  else if (args[i] === '--hyperfine') useHyperfine = true;
  else {
    const [label, dir] = nth(args, i).split('=');
    if (!label || !dir) usage();
    builds.push({ label, bin: join(resolve(dir), 'bin/abcd') });
  }
}
const firstBuild = builds[0];
if (!firstBuild || !Number.isInteger(runs) || runs < 3) usage();

/** The one-minute load average, as printed. */
const load = () => (loadavg()[0] ?? 0).toFixed(1);
const loadBefore = load();
try {
  const { root, env } = sandbox('entry-ab');
  if (ca) env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/ca-certificates.crt';
  const bare = makeRemote(root, env);
  const dir = cloneFor(bare, join(root, 'a'), env);
  const runtimes = nodeRuntimes(benchMajors());
  run(nth(runtimes, 0).path, [firstBuild.bin, 'reserve', 'ab', '--ttl', '2h'], { cwd: dir, env });
  /** @type {Cmd[]} */
  const cmds = [];
  for (const rt of runtimes) {
    cmds.push({ rt, what: '`node -e 0`', argv: [rt.path, '-e', '0'] });
    cmds.push({ rt, what: '`git fetch` (records)', argv: [REAL_GIT, 'fetch', '-q', 'origin', '+refs/heads/abcd/*:refs/bench/*'] });
    for (const b of builds) {
      cmds.push({ rt, what: `${b.label}: status --json`, argv: [rt.path, b.bin, 'status', '--json'] });
      cmds.push({ rt, what: `${b.label}: --json status (yargs)`, argv: [rt.path, b.bin, '--json', 'status'] });
    }
  }
  // Interleaved: every command once per repetition, the order rotating, so a machine whose load
  // drifts slows every command alike; hyperfine (--hyperfine) runs each command's runs in a row.
  /** @type {number[][]} */
  const times = cmds.map(() => []);
  if (useHyperfine) {
    const out = join(root, 'hyperfine.json');
    /** @type {(a: string) => string} */
    const quote = (a) => `'${a.replaceAll("'", "'\\''")}'`;
    execFileSync(
      'hyperfine',
      ['-N', '--warmup', '3', '--runs', String(runs), '--export-json', out, ...cmds.map((c) => c.argv.map(quote).join(' '))],
      {
        cwd: dir,
        env,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    const { results } = /** @type {{ results: { times: number[] }[] }} */ (JSON.parse(readFileSync(out, 'utf8')));
    results.forEach((r, i) => nth(times, i).push(...r.times.map((t) => t * 1000)));
  } else {
    for (const c of cmds) run(c.argv[0], c.argv.slice(1), { cwd: dir, env }); // warm the page cache
    for (let rep = 0; rep < runs; rep++) {
      for (let k = 0; k < cmds.length; k++) {
        const i = (k + rep) % cmds.length;
        const c = nth(cmds, i);
        nth(times, i).push(run(c.argv[0], c.argv.slice(1), { cwd: dir, env }).ms);
      }
    }
  }
  const whats = [...new Set(cmds.map((c) => c.what))];
  /** @type {(rt: Runtime, w: string) => number} */
  const at = (rt, w) => cmds.findIndex((c) => c.rt === rt && c.what === w);
  const rows = whats.map((w) => [w, ...runtimes.map((rt) => ms(median(nth(times, at(rt, w)))))]);
  // Paired: the difference between two commands within each repetition, then its median.
  /** @type {(rt: Runtime, x: string, y: string) => number} */
  const paired = (rt, x, y) => {
    const [a, b] = [nth(times, at(rt, x)), nth(times, at(rt, y))];
    return median(a.map((t, i) => t - nth(b, i)));
  };
  for (const bld of builds) {
    rows.push([
      `${bld.label}: yargs route − fast path (paired)`,
      ...runtimes.map((rt) => `${Math.round(paired(rt, `${bld.label}: --json status (yargs)`, `${bld.label}: status --json`))} ms`),
    ]);
  }
  for (const bld of builds.slice(1)) {
    rows.push([
      `${bld.label} − ${firstBuild.label}: status --json (paired)`,
      ...runtimes.map((rt) => `${Math.round(paired(rt, `${bld.label}: status --json`, `${firstBuild.label}: status --json`))} ms`),
    ]);
  }
  console.log(
    `${useHyperfine ? 'hyperfine, runs in a row' : 'Interleaved, order rotating'}, ${runs} runs each, medians${ca ? ', NODE_EXTRA_CA_CERTS set' : ''}; ` +
      `load average ${loadBefore} before, ${load()} after.\n`,
  );
  console.log(table(['command', ...runtimes.map((r) => `Node ${r.version}`)], rows));
} finally {
  cleanupAll();
}

/**
 * The element at `i`, which the caller knows is there (an index in range, found by findIndex).
 * @template T
 * @param {readonly T[]} xs
 * @param {number} i
 * @returns {T}
 */
function nth(xs, i) {
  const x = xs[i];
  if (x === undefined) throw new Error(`no element ${i} of ${xs.length}`);
  return x;
}

/** @returns {never} */
function usage() {
  console.error('usage: node bench/entry-ab.mjs [--runs N] [--ca] <label>=<dir with bin/abcd> ...');
  process.exit(2);
}
