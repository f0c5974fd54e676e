#!/usr/bin/env node
// Runs every benchmark once (build first: npm run bench), prints a Markdown summary and
// writes it to bench/results.md. Every ratio is against raw git or `node -e 0` from this run.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { cleanupAll, git, REAL_GIT } from './lib.mjs';
import { benchStartup } from './startup.mjs';
import { benchStatusScale } from './status-scale.mjs';
import { benchVerbs } from './verbs.mjs';

const started = Date.now();
const loadBefore = loadavg()[0].toFixed(1);
process.on('SIGINT', () => {
  cleanupAll();
  process.exit(130);
});
const sections = [];
try {
  sections.push(await benchVerbs());
  const { scale, breakdown } = await benchStatusScale();
  sections.push(scale, await benchStartup(), breakdown);
} finally {
  cleanupAll();
}
const gitVersion = git('.', ['--version'], process.env).stdout.trim();
const head = [
  '# abcd benchmarks',
  '',
  `${new Date().toISOString().slice(0, 16)}Z, node ${process.version}, ${gitVersion} (${REAL_GIT}), ` +
    `${cpus().length} CPUs, whole run ${Math.round((Date.now() - started) / 1000)} s, ` +
    `load average ${loadBefore} before, ${loadavg()[0].toFixed(1)} after. ` +
    'Machines are noisy: compare ratios, not absolute times.',
  '',
].join('\n');
const md = [head, ...sections].join('\n');
process.stdout.write(md);
writeFileSync(join(import.meta.dirname, 'results.md'), md);
