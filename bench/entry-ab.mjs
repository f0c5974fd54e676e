#!/usr/bin/env node
// Start-up A/B under hyperfine: the everyday verbs of several builds on several Node lines, in
// one sandbox, against `node -e 0` and a raw fetch. Not part of run.mjs: a tool for deciding
// whether a start-up change earns its place (hyperfine must be on PATH).
//
//   node bench/entry-ab.mjs [--runs N] [--ca] <label>=<dir with bin/abcd> ...
//
// For each build: `status`, `status --json` and `renew <item>` as agents call them (the fast
// path), and `--json status`, which the fast path hands to yargs (an option before the verb).
// --ca sets NODE_EXTRA_CA_CERTS to the system CA bundle for every command. ABCD_BENCH_NODES
// names the Node majors (default 22,24,26). Prints one Markdown table of medians.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { cleanupAll, cloneFor, git, makeRemote, ms, REAL_GIT, run, sandbox, table } from './lib.mjs';
import { benchMajors, nodeRuntimes } from './runtimes.mjs';

const args = process.argv.slice(2);
let runs = 30;
let ca = false;
const builds = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--runs') runs = Number(args[++i]);
  else if (args[i] === '--ca') ca = true;
  else {
    const [label, dir] = args[i].split('=');
    if (!label || !dir) usage();
    builds.push({ label, bin: join(resolve(dir), 'bin/abcd') });
  }
}
if (!builds.length || !Number.isInteger(runs) || runs < 3) usage();

const loadBefore = loadavg()[0].toFixed(1);
try {
  const { root, env } = sandbox('entry-ab');
  if (ca) env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/ca-certificates.crt';
  const bare = makeRemote(root, env);
  const dir = cloneFor(bare, join(root, 'a'), env);
  const runtimes = nodeRuntimes(benchMajors());
  run(runtimes[0].path, [builds[0].bin, 'reserve', 'ab', '--ttl', '2h'], { cwd: dir, env });
  const cmds = [];
  for (const rt of runtimes) {
    cmds.push({ rt, what: '`node -e 0`', argv: [rt.path, '-e', '0'] });
    cmds.push({ rt, what: '`git fetch` (records)', argv: [REAL_GIT, 'fetch', '-q', 'origin', '+refs/heads/abcd/*:refs/bench/*'] });
    for (const b of builds) {
      cmds.push({ rt, what: `${b.label}: status`, argv: [rt.path, b.bin, 'status'] });
      cmds.push({ rt, what: `${b.label}: status --json`, argv: [rt.path, b.bin, 'status', '--json'] });
      cmds.push({ rt, what: `${b.label}: --json status (yargs)`, argv: [rt.path, b.bin, '--json', 'status'] });
      cmds.push({ rt, what: `${b.label}: renew`, argv: [rt.path, b.bin, 'renew', 'ab'] });
    }
  }
  const out = join(root, 'hyperfine.json');
  const quote = (a) => `'${a.replaceAll("'", "'\\''")}'`;
  execFileSync(
    'hyperfine',
    ['-N', '--warmup', '3', '--runs', String(runs), '--export-json', out, ...cmds.map((c) => c.argv.map(quote).join(' '))],
    { cwd: dir, env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const results = JSON.parse(readFileSync(out, 'utf8')).results;
  const whats = [...new Set(cmds.map((c) => c.what))];
  const rows = whats.map((w) => [
    w,
    ...runtimes.map((rt) => {
      const i = cmds.findIndex((c) => c.rt === rt && c.what === w);
      const r = results[i];
      return `${ms(r.median * 1000)} ± ${ms(r.stddev * 1000)}`;
    }),
  ]);
  git(dir, ['--version'], env);
  console.log(
    `hyperfine, ${runs} runs each after 3 warm-ups, medians ± standard deviation${ca ? ', NODE_EXTRA_CA_CERTS set' : ''}; ` +
      `load average ${loadBefore} before, ${loadavg()[0].toFixed(1)} after.\n`,
  );
  console.log(table(['command', ...runtimes.map((r) => `Node ${r.version}`)], rows));
} finally {
  cleanupAll();
}

function usage() {
  console.error('usage: node bench/entry-ab.mjs [--runs N] [--ca] <label>=<dir with bin/abcd> ...');
  process.exit(2);
}
