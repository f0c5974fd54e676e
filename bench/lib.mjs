// Shared helpers for the benchmarks: isolated sandboxes, timing, remotes, record building.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const NODE = process.execPath;
/** The real git, found before any sandbox puts a wrapper first on PATH. */
export const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
export const CLAIM_PREFIX = 'refs/heads/abcd/claims/local/item/';
export const RAW_SPEC = '+refs/heads/abcd/*:refs/bench/*';

/**
 * @typedef {NodeJS.ProcessEnv} Env A child's whole environment.
 * @typedef {{ code: number, stdout: string, stderr: string, ms: number }} Ran A finished command.
 * @typedef {{ cwd?: string, env?: Env, input?: string, ok?: number[] }} RunOptions
 * @typedef {{ i: number, dir: string, env: Env }} LandingSession One of landingRemote's sessions.
 * @typedef {{ code: number | null, stdout: string, stderr: string, ms: number, start: number, end: number }} Spawned
 * @typedef {{ env: (env: Env) => Env, take: () => string[] }} GitLogger
 */

/** @type {string[]} */
const sandboxes = [];

/**
 * A private copy of the build (bin/, dist/, package.json; node_modules linked), so a rebuild
 * in the working tree during a run cannot mix two versions into one set of figures.
 */
function snapshotBuild() {
  const from = resolve(import.meta.dirname, '..');
  const to = mkdtempSync(join(tmpdir(), 'abcd-bench-build-'));
  sandboxes.push(to);
  for (const p of ['bin', 'dist', 'package.json']) cpSync(join(from, p), join(to, p), { recursive: true });
  symlinkSync(join(from, 'node_modules'), join(to, 'node_modules'));
  return to;
}
export const BUILD = snapshotBuild();
export const ABCD = join(BUILD, 'bin/abcd');

/**
 * A temp dir with its own HOME and a clean git environment; removed by cleanupAll().
 * @param {string} name
 * @returns {{ root: string, env: Env & { HOME: string } }}
 */
export function sandbox(name) {
  const root = mkdtempSync(join(tmpdir(), `abcd-bench-${name}-`));
  sandboxes.push(root);
  const home = join(root, 'home');
  mkdirSync(home);
  // No auto-gc/maintenance anywhere, so no run pays for a random repack (abcd's own fetch
  // passes --no-auto-maintenance already; this keeps the raw-git baselines equally lean).
  writeFileSync(join(home, '.gitconfig'), '[maintenance]\n\tauto = false\n[gc]\n\tauto = 0\n');
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    LANG: 'C',
    ABCD_SESSION: 'bench',
    ABCD_MACHINE_DIR: join(root, 'machine'),
  };
  return { root, env };
}

export function cleanupAll() {
  for (const d of sandboxes.splice(0)) rmSync(d, { recursive: true, force: true });
}

/**
 * Runs a command; throws unless it exits with one of `ok` codes.
 * @param {string} cmd
 * @param {string[]} args
 * @param {RunOptions} [options]
 * @returns {Ran}
 */
export function run(cmd, args, { cwd, env, input, ok = [0] } = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, env, input, encoding: 'utf8', maxBuffer: 256 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) throw r.error;
  // A signal leaves no status: never one of the codes asked for.
  if (r.status === null || !ok.includes(r.status)) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr || r.stdout}`);
  }
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ms };
}

/** @type {(cwd: string, args: string[], env: Env, opts?: RunOptions) => Ran} */
export const git = (cwd, args, env, opts = {}) => run(REAL_GIT, ['-C', cwd, ...args], { env, ...opts });
/**
 * Runs the snapshot's bin/abcd; `opts.node` names another node binary than this one.
 * @type {(cwd: string, args: string[], env: Env, opts?: RunOptions & { node?: string }) => Ran}
 */
export const abcd = (cwd, args, env, { node = NODE, ...opts } = {}) => run(node, [ABCD, ...args], { cwd, env, ...opts });

/**
 * @param {readonly number[]} xs at least one
 * @returns {number}
 */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  // The middle two (one and the same when the count is odd).
  const lo = s[(s.length - 1) >> 1];
  const hi = s[s.length >> 1];
  if (lo === undefined || hi === undefined) throw new Error('the median of no measurements');
  return (lo + hi) / 2;
}

/**
 * Runs each probe once to warm the page cache, then `reps` rounds of all of them in turn
 * (interleaved, so none always meets a warmer cache), and answers each probe's median.
 * @template {Record<string, (() => number) | undefined>} P
 * @param {P} probes an absent probe is skipped, and absent from the answer
 * @param {number} reps
 * @returns {{ [K in keyof P]: number }}
 */
export function interleavedMedians(probes, reps) {
  /** @type {{ key: string, probe: () => number, times: number[] }[]} */
  const all = [];
  for (const [key, probe] of Object.entries(probes)) if (probe) all.push({ key, probe, times: [] });
  for (const p of all) p.probe();
  for (let rep = 0; rep < reps; rep++) for (const p of all) p.times.push(p.probe());
  return /** @type {{ [K in keyof P]: number }} */ (Object.fromEntries(all.map((p) => [p.key, median(p.times)])));
}

/** @type {(x: number) => string} */
export const ms = (x) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`);
/** @type {(a: number, b: number) => string} */
export const ratio = (a, b) => `${(a / b).toFixed(2)}x`;
/** @type {(pass: boolean) => string} */
export const mark = (pass) => (pass ? 'yes' : '**NO**');

/**
 * Markdown table from a header row and rows.
 * @param {string[]} head
 * @param {(string | number)[][]} rows
 */
export function table(head, rows) {
  /** @param {(string | number)[]} cells */
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * A bare remote with one commit on main.
 * @param {string} root
 * @param {Env} env
 */
export function makeRemote(root, env) {
  const bare = join(root, 'remote.git');
  git(root, ['init', '-q', '--bare', '-b', 'main', bare], env);
  const seed = join(root, 'seed');
  git(root, ['init', '-q', '-b', 'main', seed], env);
  writeFileSync(join(seed, 'README.md'), '# bench\n');
  git(seed, ['add', '.'], env);
  git(seed, ['-c', 'user.name=seed', '-c', 'user.email=seed@example.com', 'commit', '-q', '-m', 'initial'], env);
  git(seed, ['push', '-q', bare, 'main'], env);
  return bare;
}

/**
 * A clone that has only main (never fetched abcd refs), set up for abcd.
 * @param {string} bare
 * @param {string} dir
 * @param {Env} env
 */
export function cloneFor(bare, dir, env, email = 'bench@example.com') {
  git(dirOf(dir), ['clone', '-q', '--single-branch', '--branch', 'main', `file://${bare}`, dir], env);
  git(dir, ['config', 'user.email', email], env);
  git(dir, ['config', 'user.name', email.split('@')[0] ?? email], env);
  git(dir, ['config', 'commit.gpgsign', 'false'], env);
  return dir;
}

/**
 * A remote whose main carries `.abcd/config.json` = `config`, and `n` landing sessions on it:
 * each its own clone, HOME and ABCD_SESSION (`lander<i>`), all sharing one machine folder.
 * `envOf(base, i, root)` adds each session's variables. The sessions have read the records once.
 * @param {{ name: string, config: unknown, n: number, envOf: (base: Env, i: number, root: string) => Env }} o
 */
export function landingRemote({ name, config, n, envOf }) {
  const { root, env } = sandbox(name);
  const bare = makeRemote(root, env);
  const seed = join(root, 'seed');
  mkdirSync(join(seed, '.abcd'));
  writeFileSync(join(seed, '.abcd/config.json'), JSON.stringify(config) + '\n');
  git(seed, ['add', '.'], env);
  git(seed, ['-c', 'user.name=seed', '-c', 'user.email=seed@example.com', 'commit', '-q', '-m', 'configure land checks'], env);
  git(seed, ['push', '-q', bare, 'main'], env);
  const machine = join(root, 'machine');
  /** @type {LandingSession[]} */
  const sessions = [];
  for (let i = 0; i < n; i++) {
    const home = join(root, `home-${i}`);
    mkdirSync(home);
    cpSync(join(env.HOME, '.gitconfig'), join(home, '.gitconfig'));
    const e = envOf({ ...env, HOME: home, ABCD_SESSION: `lander${i}`, ABCD_MACHINE_DIR: machine }, i, root);
    sessions.push({ i, dir: cloneFor(bare, join(root, `s${i}`), e, `lander${i}@example.com`), env: e });
  }
  for (const s of sessions) abcd(s.dir, ['status'], s.env); // caches exist before the clock starts
  return { root, env, bare, sessions };
}

/** @type {(p: string) => string} */
const dirOf = (p) => resolve(p, '..');

/**
 * Writes n held, live claim records into the bare remote with one `git fast-import`, then packs refs.
 * @param {string} bare
 * @param {number} n
 * @param {Env} env
 */
export function fastImportClaims(bare, n, env) {
  const now = Date.now();
  const sec = Math.floor(now / 1000);
  const parts = [];
  for (let i = 0; i < n; i++) {
    const json = JSON.stringify({
      abcd: 'claim',
      v: 1,
      item: `local:item:item-${i}`,
      state: 'held',
      holder: { person: 'p@example.com', host: 'h', session: 's' },
      gen: 0,
      at: now,
      ttl: 86_400_000,
    });
    parts.push(
      `blob\nmark :${i + 1}\ndata ${Buffer.byteLength(json)}\n${json}\n` +
        `commit ${CLAIM_PREFIX}item-${i}\ncommitter bench <bench@example.com> ${sec} +0000\ndata 5\nclaim\n` +
        `M 100644 :${i + 1} record.json\n\n`,
    );
  }
  git(bare, ['fast-import', '--quiet'], env, { input: parts.join('') });
  // A hosted remote keeps its refs packed; 10k loose ref files would slow every advertisement.
  git(bare, ['pack-refs', '--all'], env);
}

/**
 * Objects in a repository (loose + packed), to see whether a run fetched anything.
 * @param {string} dir
 * @param {Env} env
 */
export function objectCount(dir, env) {
  const v = Object.fromEntries(
    git(dir, ['count-objects', '-v'], env)
      .stdout.trim()
      .split('\n')
      .map((l) => l.split(': ')),
  );
  return Number(v.count) + Number(v['in-pack']);
}

/**
 * A `git` wrapper first on PATH that logs each argv (one JSON array a line), then execs the real git.
 * @param {string} root
 * @returns {GitLogger}
 */
export function gitLogger(root) {
  const dir = join(root, 'wrapper');
  mkdirSync(dir);
  const log = join(root, 'git-argv.log');
  const script = join(dir, 'git');
  // Plain sh, so the wrapper adds no node start-up; "$*" puts the subcommand after -C <dir>.
  writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$*" >> "$BENCH_GIT_LOG"\nexec '${REAL_GIT}' "$@"\n`);
  chmodSync(script, 0o755);
  return {
    env: (env) => ({ ...env, PATH: `${dir}:${env.PATH}`, BENCH_GIT_LOG: log }),
    /** Returns and clears the argvs logged so far. */
    take() {
      let text = '';
      try {
        text = readFileSync(log, 'utf8');
      } catch {
        // no git ran since the last take: nothing logged
      }
      writeFileSync(log, '');
      return text.split('\n').filter(Boolean);
    },
  };
}

const NETWORK = new Set(['fetch', 'push', 'ls-remote', 'clone', 'pull']);

/**
 * The git subcommand of a logged argv line (skips -C <dir> and -c k=v).
 * @param {string} line
 */
export function subcommand(line) {
  const a = line.split(' ');
  for (let i = 0; i < a.length; i++) {
    const word = a[i] ?? '';
    if (word === '-C' || word === '-c') i++;
    else if (!word.startsWith('-')) return word;
  }
  return '?';
}

/**
 * Counts spawns: {total, trips, local, cmds: 'fetch, push, ...'}.
 * @param {string[]} lines
 */
export function classify(lines) {
  const cmds = lines.map(subcommand);
  const trips = cmds.filter((c) => NETWORK.has(c)).length;
  return { total: cmds.length, trips, local: cmds.length - trips, cmds };
}

/** Rows of the speed targets' table, filled by each part as it measures them; run.mjs renders section 0. */
/** @type {{ what: string, abcd: string, baseline: string, ratio: string, limit: number, met: boolean, note: string }[]} */
export const targets = [];

/**
 * Records one row of the targets table: a ratio measured in this run against its target.
 * @param {string} what
 * @param {number} abcdMs
 * @param {string} baseline
 * @param {number} baselineMs
 * @param {number} limit
 */
export function target(what, abcdMs, baseline, baselineMs, limit, note = '') {
  targets.push({
    what,
    abcd: ms(abcdMs),
    baseline: `${baseline} ${ms(baselineMs)}`,
    ratio: ratio(abcdMs, baselineMs),
    limit,
    met: abcdMs / baselineMs <= limit,
    note,
  });
}

/**
 * Runs a command without blocking the event loop.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: Env }} o
 * @returns {Promise<Spawned>}
 */
export function spawnAsync(cmd, args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const p = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => {
      const end = performance.now();
      resolve({ code, stdout, stderr, ms: end - start, start, end });
    });
  });
}

/**
 * spawnAsync that throws, naming the command and its output, on a non-zero exit.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: Env }} o
 */
export async function must(cmd, args, o) {
  const r = await spawnAsync(cmd, args, o);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}: ${r.stderr || r.stdout}`);
  return r;
}

/**
 * One landing by a bench session (landingRemote's): reserve `item`, commit `file` on
 * work/<item> from origin/main, land it with `--wait`. Answers the land's run and its JSON.
 * @param {{ dir: string, env: Env }} s
 * @param {{ item: string, file: string, wait: string }} o
 */
export async function landOne(s, { item, file, wait }) {
  const o = { cwd: s.dir, env: s.env };
  await must(NODE, [ABCD, 'reserve', item, '--ttl', '15m'], o);
  await must(REAL_GIT, ['checkout', '-q', '-B', `work/${item}`, 'origin/main'], o);
  writeFileSync(join(s.dir, file), `${item}\n`);
  await must(REAL_GIT, ['add', file], o);
  await must(REAL_GIT, ['commit', '-q', '-m', item], o);
  const r = await spawnAsync(NODE, [ABCD, 'land', item, '--json', '--wait', wait], o);
  /** @type {any} the land's --json answer, read by path */
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    // not JSON (the land failed before answering): json stays undefined, callers judge by the exit code
  }
  return { r, json };
}

/**
 * The raw git floor of one landing: node start + fetch + worktree add + rebase + leased push +
 * worktree remove, median of 3. The land benches' serial ceiling is 60 s / (check + this).
 */
export function rawLandFloor() {
  const { root, env } = sandbox('land-floor');
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

/**
 * Whether the k-th item of a run fails its check at `rate` percent: every fifth at 20%, counted
 * across sessions (k = item * sessions + session), so failures meet every queue position.
 * @type {(k: number, rate: number) => boolean}
 */
export const failsAt = (k, rate) => rate > 0 && k % Math.round(100 / rate) === 2;

/**
 * @typedef {{ item: string, fails: boolean, code: number | null, ms: number, why: string }} LandedItem
 * One item's landing by landInARow: `fails` when it was made to fail its check.
 */

/**
 * A session lands `items` items one after another (landOne each, from a freshly fetched main);
 * a failing item adds `fail-<item>.txt` instead of `<item>.txt`. A land that did not succeed
 * releases its claim, as an agent would before moving on.
 * @param {LandingSession} s
 * @param {{ sessions: number, rate: number, items: number, wait: string }} o sessions in all, failures in percent
 * @returns {Promise<LandedItem[]>}
 */
export async function landInARow(s, { sessions, rate, items, wait }) {
  const out = [];
  const o = { cwd: s.dir, env: s.env };
  for (let k = 0; k < items; k++) {
    const item = `s${s.i}-i${k}`;
    const bad = failsAt(k * sessions + s.i, rate);
    await must(REAL_GIT, ['fetch', '-q', 'origin', 'main'], o);
    const { r, json } = await landOne(s, { item, file: bad ? `fail-${item}.txt` : `${item}.txt`, wait });
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
