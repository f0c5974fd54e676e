#!/usr/bin/env node
// What running a land's check in its sandbox costs: `abcd land <item>` with `land.checks: "true"`,
// interleaved between a remote whose checks run in bubblewrap (`land.sandbox: "bwrap"`) and one
// whose checks run unsandboxed (`land.sandbox: "none"`, as every check ran before), in one run.
// Prints the medians of the whole land and of the check as land reports it (its durationMs,
// which includes starting bubblewrap), and what the sandbox adds to each.
//
//   node bench/check-sandbox.mjs [reps=20]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { abcd, cleanupAll, git, landingRemote, median, ms } from './lib.mjs';
/** @import { LandingSession } from './lib.mjs' */

/** @typedef {'bwrap' | 'none'} Sandbox A value of land.sandbox. */
/** @typedef {{ s: LandingSession, base: string, n: number }} Remote A remote, its one session, and its lands so far. */
/** @typedef {{ land: number, check: number, sandbox: string }} Landed One land's time, its check's, and where the check ran. */

const REPS = Number(process.argv[2] ?? 20);
/** The one-minute load average, as printed. */
const load = () => (loadavg()[0] ?? 0).toFixed(2);
const loadBefore = load();

/**
 * @param {Sandbox} sandbox
 * @returns {Remote}
 */
function remote(sandbox) {
  const r = landingRemote({ name: `check-${sandbox}`, config: { land: { checks: 'true', sandbox } }, n: 1, envOf: (e) => e });
  const s = r.sessions[0];
  if (!s) throw new Error('landingRemote made no session');
  return { s, base: git(s.dir, ['rev-parse', 'HEAD'], s.env).stdout.trim(), n: 0 };
}

/**
 * @param {Remote} r
 * @returns {Landed}
 */
function landOnce(r) {
  const item = `c-${r.n++}`;
  const { dir, env } = r.s;
  abcd(dir, ['reserve', item], env);
  git(dir, ['checkout', '-q', '-B', `work/${item}`, r.base], env);
  writeFileSync(join(dir, `${item}.txt`), `${item}\n`);
  git(dir, ['add', '.'], env);
  git(dir, ['commit', '-q', '-m', item], env);
  const res = abcd(dir, ['land', item, '--json'], env);
  const out = JSON.parse(res.stdout);
  if (out.attempts !== 1 || out.checks.length !== 1) throw new Error(`unexpected land: ${res.stdout}`);
  return { land: res.ms, check: out.checks[0].durationMs, sandbox: out.checksSandbox };
}

try {
  const runs = { bwrap: remote('bwrap'), none: remote('none') };
  /** @type {Record<Sandbox, Landed[]>} */
  const seen = { bwrap: [], none: [] };
  landOnce(runs.bwrap); // warm: the first land of each pays for caches both would pay once
  landOnce(runs.none);
  for (let i = 0; i < REPS; i++) {
    for (const k of /** @type {Sandbox[]} */ (i % 2 ? ['none', 'bwrap'] : ['bwrap', 'none'])) {
      const r = landOnce(runs[k]);
      if (r.sandbox !== k) throw new Error(`the ${k} land ran its check in ${r.sandbox}`);
      seen[k].push(r);
    }
  }
  /** @type {(k: Sandbox, f: 'land' | 'check') => number} */
  const m = (k, f) => median(seen[k].map((x) => x[f]));
  console.log(`land with land.checks "true", median of ${REPS} each, interleaved (load ${loadBefore} -> ${load()})`);
  console.log(`| | sandboxed (bwrap) | unsandboxed (none) | the sandbox adds |`);
  console.log(`|---|---|---|---|`);
  console.log(`| whole land | ${ms(m('bwrap', 'land'))} | ${ms(m('none', 'land'))} | ${ms(m('bwrap', 'land') - m('none', 'land'))} |`);
  console.log(`| the check | ${ms(m('bwrap', 'check'))} | ${ms(m('none', 'check'))} | ${ms(m('bwrap', 'check') - m('none', 'check'))} |`);
} finally {
  cleanupAll();
}
