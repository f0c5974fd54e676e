// 2. `abcd status` with 1k and 10k claims, cold and warm, against a raw `git fetch` of the same refs.
// 4. Where a warm 10k status spends its time (trace2 of abcd's own git calls + in-process decode).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  abcd,
  BUILD,
  cloneFor,
  fastImportClaims,
  git,
  makeRemote,
  mark,
  median,
  ms,
  NODE,
  objectCount,
  RAW_SPEC,
  ratio,
  run,
  sandbox,
  target,
  table,
} from './lib.mjs';

/** @import { Env } from './lib.mjs' */

/** @type {{ n: number, cold: number, warmPerCold: number, goal: { warm?: number, cold?: number } }[]} */
const SIZES = [
  { n: 1000, cold: 5, warmPerCold: 2, goal: {} },
  { n: 10000, cold: 3, warmPerCold: 2, goal: { warm: 1500, cold: 4000 } },
];

export async function benchStatusScale() {
  const out = ['## 2. `abcd status` at scale', ''];
  /** @type {string[][]} */
  const rows = [];
  let breakdown = '';
  for (const size of SIZES) {
    const { root, env } = sandbox(`status-${size.n}`);
    const bare = makeRemote(root, env);
    const t0 = Date.now();
    fastImportClaims(bare, size.n, env);
    const built = Date.now() - t0;
    /** @type {{ cold: { abcd: number[], raw: number[] }, warm: { abcd: number[], raw: number[] }, node: number[] }} */
    const t = { cold: { abcd: [], raw: [] }, warm: { abcd: [], raw: [] }, node: [] };
    let warmFetched = 0;
    for (let rep = 0; rep < size.cold; rep++) {
      const mine = cloneFor(bare, join(root, `abcd-${rep}`), env);
      const raw = cloneFor(bare, join(root, `raw-${rep}`), env);
      const status = () => {
        const r = abcd(mine, ['status'], env);
        const lines = r.stdout.split('\n').length;
        if (lines < size.n) throw new Error(`abcd status listed ${lines} lines for ${size.n} claims`);
        return r.ms;
      };
      const fetch = () => git(raw, ['fetch', '-q', 'origin', RAW_SPEC], env).ms;
      // Alternate which goes first, so neither always meets a warmer page cache.
      if (rep % 2) {
        t.cold.raw.push(fetch());
        t.cold.abcd.push(status());
      } else {
        t.cold.abcd.push(status());
        t.cold.raw.push(fetch());
      }
      for (let w = 0; w < size.warmPerCold; w++) {
        const before = objectCount(mine, env);
        t.warm.abcd.push(status());
        warmFetched += objectCount(mine, env) - before;
        t.warm.raw.push(fetch());
        t.node.push(run(NODE, ['-e', '0'], { env }).ms);
      }
      if (size.n === 10000 && rep === size.cold - 1) breakdown = await whereTimeGoes(mine, env, root, median(t.warm.abcd));
      rmSync(mine, { recursive: true, force: true });
      rmSync(raw, { recursive: true, force: true });
    }
    for (const kind of /** @type {const} */ (['cold', 'warm'])) {
      const a = median(t[kind].abcd);
      const r = median(t[kind].raw);
      const goal = size.goal[kind];
      rows.push([
        size.n.toLocaleString('en'),
        kind,
        ms(a),
        ms(r),
        ratio(a, r),
        goal ? `< ${ms(goal)}: ${mark(a < goal)}${r >= goal ? ' (raw git alone misses it)' : ''}` : '',
      ]);
    }
    if (size.n === 1000) {
      const n = median(t.node);
      target('status, 1,000 records, warm', median(t.warm.abcd), 'raw fetch + `node -e 0`', median(t.warm.raw) + n, 2);
    }
    if (size.n === 10000) target('status, 10,000 records, cold', median(t.cold.abcd), 'raw fetch', median(t.cold.raw), 1.3);
    out.push(
      `${size.n} records built with one \`git fast-import\` + \`pack-refs\` in ${ms(built)}; ` +
        `objects fetched by the warm runs: ${warmFetched} ${mark(warmFetched === 0)}.`,
    );
  }
  out.push(
    '',
    'Cold: a fresh `--single-branch` clone that never fetched abcd refs. Warm: the same clone again, nothing changed.',
    `Raw: \`git fetch origin '${RAW_SPEC}'\` in its own fresh clone, interleaved with abcd in the same run. Medians.`,
    '',
    table(['records', 'cache', 'abcd status', 'raw git fetch', 'ratio', 'goal'], rows),
    '',
  );
  return { scale: out.join('\n'), breakdown };
}

/**
 * Runs one warm status under GIT_TRACE2_EVENT and splits its time by git command, decode and the rest.
 * @param {string} clone
 * @param {Env} env
 * @param {string} root
 * @param {number} warmMedian
 */
async function whereTimeGoes(clone, env, root, warmMedian) {
  const trace = join(root, 'trace2.json');
  const total = abcd(clone, ['status'], { ...env, GIT_TRACE2_EVENT: trace }).ms;
  /** @type {Map<string, string[]>} */
  const argvOf = new Map();
  /** @type {Map<string, number>} */
  const gitMs = new Map();
  for (const line of readFileSync(trace, 'utf8').split('\n').filter(Boolean)) {
    const e = JSON.parse(line);
    if (e.sid.includes('/')) continue; // a child of abcd's git (upload-pack, ...): counted in its parent
    if (e.event === 'start') argvOf.set(e.sid, e.argv);
    if (e.event === 'exit') {
      const argv = argvOf.get(e.sid) ?? [];
      const name = argv[argv.indexOf('-C') + 2] ?? '?';
      gitMs.set(name, (gitMs.get(name) ?? 0) + e.t_abs * 1000);
    }
  }
  const decodeMs = await decodeTime(clone, env);
  const nodeMs = median([0, 1, 2].map(() => run(NODE, ['-e', '0'], { env }).ms));
  const importMs = median([0, 1, 2].map(() => run(NODE, ['--input-type=module', '-e', IMPORTS], { cwd: BUILD, env }).ms)) - nodeMs;
  const gitSum = [...gitMs.values()].reduce((s, x) => s + x, 0);
  const rows = [...gitMs].map(([name, t]) => [`git ${name}`, ms(t)]);
  rows.push(
    ['decode 10k records (zod, in-process)', ms(decodeMs)],
    ['`node -e 0` start-up', ms(nodeMs)],
    ['module imports (the bundled entry and status chunks, zod)', ms(importMs)],
    ['rest: spawning, fetch/list/batch I/O, sorting, rendering 10k rows', ms(Math.max(0, total - gitSum - decodeMs - nodeMs - importMs))],
    ['**total (this traced run)**', `**${ms(total)}**`],
  );
  return [
    '## 4. Where a warm 10k `abcd status` spends its time',
    '',
    `One traced run (untraced warm median ${ms(warmMedian)}). git times are trace2 \`t_abs\` of each git process abcd spawned;`,
    '`rev-parse` and `config` run in parallel, so the sum slightly overstates them.',
    '',
    table(['stage', 'time'], rows),
    '',
  ].join('\n');
}

// What `abcd status` loads before it does any work, in a fresh node (the import alone, not run).
// What `abcd status` loads: the fast-path entry and the chunks of its verb (bundled, ADR 0038).
const IMPORTS = readdirSync(join(BUILD, 'dist/bundle'))
  .filter((f) => /^(abcd\.js$|status-|repo-|snapshot-|schemas-|refs-|git-|deps-)/.test(f))
  .map((f) => `await import('./dist/bundle/${f}');`)
  .join(' ');

/**
 * Median time of abcd's own buildSnapshot over the clone's cached records (imported from dist/,
 * typed by the sources it was built from).
 * @param {string} clone
 * @param {Env} env
 */
async function decodeTime(clone, env) {
  /** @type {(p: string) => Promise<unknown>} */
  const dist = (p) => import(pathToFileURL(join(BUILD, 'dist', p)).href);
  const { Git } = /** @type {typeof import('../src/git/git.js')} */ (await dist('git/git.js'));
  const { RecordStore } = /** @type {typeof import('../src/records/store.js')} */ (await dist('records/store.js'));
  const { buildSnapshot } = /** @type {typeof import('../src/repo/snapshot.js')} */ (await dist('repo/snapshot.js'));
  const { unprotectedSettings } = /** @type {typeof import('../src/repo/settings-trust/trust.js')} */ (
    await dist('repo/settings-trust/trust.js')
  );
  const store = new RecordStore(new Git(clone, env), 'origin', { capMs: 30_000, now: () => Date.now(), sleep: async () => {} });
  const raws = await store.readCached();
  const times = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const snap = await buildSnapshot(raws, { readAt: Date.now(), judge: unprotectedSettings('') });
    if (snap.claims.size !== raws.length) throw new Error(`decoded ${snap.claims.size} of ${raws.length}`);
    times.push(performance.now() - t0);
  }
  return median(times);
}
