// 1. Per verb: git processes spawned, network round trips, time against the raw git floor.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  abcd,
  classify,
  cloneFor,
  git,
  gitLogger,
  makeRemote,
  mark,
  median,
  ms,
  NODE,
  objectCount,
  ratio,
  RAW_SPEC,
  run,
  sandbox,
  table,
  target as record,
} from './lib.mjs';

/** @import { Env } from './lib.mjs' */
/** @typedef {ReturnType<typeof classify>} Counts */

const REPS = 5; // timed repetitions; one more, first, is counted through the git wrapper

export async function benchVerbs() {
  const { root, env } = sandbox('verbs');
  const bare = makeRemote(root, env);
  const envA = { ...env, ABCD_SESSION: 'alice' };
  const envB = { ...env, ABCD_SESSION: 'bob' };
  const a = cloneFor(bare, join(root, 'a'), envA, 'alice@example.com');
  const b = cloneFor(bare, join(root, 'b'), envB, 'bob@example.com');
  abcd(a, ['status'], envA); // both caches exist before anything is measured
  abcd(b, ['status'], envB);
  const logger = gitLogger(root);

  const verbs = /** @type {const} */ (['reserve (free)', 'reserve (held)', 'renew', 'push', 'release', 'status']);
  /** @typedef {typeof verbs[number]} Verb */
  const times = /** @type {Record<Verb, number[]>} */ (Object.fromEntries(verbs.map((v) => [v, /** @type {number[]} */ ([])])));
  /** @type {Partial<Record<Verb, Counts>>} */
  const counts = {};
  /** @type {(v: Verb) => Counts} */
  const countsOf = (v) => {
    const c = counts[v];
    if (!c) throw new Error(`${v} was not counted`);
    return c;
  };
  /** @type {{ fetch: number[], push: number[], node: number[] }} */
  const raw = { fetch: [], push: [], node: [] };
  let statusFetchedObjects = 0;
  let statusWants = 0;

  for (let rep = 0; rep <= REPS; rep++) {
    const counted = rep === 0;
    const item = `item-${rep}`;
    /** @type {(e: Env) => Env} */
    const wrap = (e) => (counted ? logger.env(e) : e);
    /** @type {(verb: Verb, dir: string, args: string[], e: Env, ok?: number[]) => import('./lib.mjs').Ran} */
    const step = (verb, dir, args, e, ok = [0]) => {
      const r = abcd(dir, args, wrap(e), { ok });
      if (counted) counts[verb] = classify(logger.take());
      else times[verb].push(r.ms);
      return r;
    };
    step('reserve (free)', a, ['reserve', item, '--ttl', '10m'], envA);
    step('reserve (held)', b, ['reserve', item], envB, [3]);
    step('renew', a, ['renew', item], envA);
    git(a, ['checkout', '-q', '-B', `work/${item}`, 'origin/main'], envA);
    writeFileSync(join(a, `${item}.txt`), `${item}\n`);
    git(a, ['add', '.'], envA);
    git(a, ['commit', '-q', '-m', item], envA);
    step('push', a, ['push', item], envA);
    step('release', a, ['release', item], envA);
    abcd(a, ['status'], envA); // sees the release; the next status has nothing new to read
    const before = objectCount(a, envA);
    const packets = join(root, 'packet.log'); // traced in the counted run only, so times stay clean
    step('status', a, ['status'], counted ? { ...envA, GIT_TRACE_PACKET: packets } : envA);
    statusFetchedObjects += objectCount(a, envA) - before;
    if (counted) statusWants = (readFileSync(packets, 'utf8').match(/fetch> (want |command=fetch)/g) ?? []).length;

    // The raw git floor in the same clone: a no-op fetch of the record refs and a push of one new commit.
    raw.node.push(run(NODE, ['-e', '0'], { env: envA }).ms);
    raw.fetch.push(git(a, ['fetch', '-q', 'origin', RAW_SPEC], envA).ms);
    const oid = git(a, ['commit-tree', '-m', `raw ${rep}`, 'HEAD^{tree}'], envA).stdout.trim();
    raw.push.push(
      git(a, ['push', '-q', '--porcelain', `--force-with-lease=refs/heads/raw/r${rep}:`, 'origin', `${oid}:refs/heads/raw/r${rep}`], envA)
        .ms,
    );
  }

  // The floor for a verb: start node, then run the round trips it needs as raw git.
  const n = median(raw.node.slice(1));
  const f = median(raw.fetch.slice(1));
  const p = median(raw.push.slice(1));
  /** @type {(v: Verb) => boolean} */
  const readOnly = (v) => v === 'status' || v === 'reserve (held)';
  /** @type {(v: Verb) => number} */
  const floor = (v) => n + f + (readOnly(v) ? 0 : p);
  /** @type {(v: Verb) => string} */
  const floorName = (v) => (readOnly(v) ? 'node + fetch' : 'node + fetch + push');
  /** @type {Partial<Record<Verb, (c: Counts) => string[]>>} */
  const target = {
    'reserve (free)': (c) => [`1 trip (the push; cache shows it free): ${mark(c.trips === 1)}`],
    status: (c) => [
      `1 trip: ${mark(c.trips === 1)}; objects fetched when unchanged: ${statusFetchedObjects} (wants sent: ${statusWants}) ${mark(statusFetchedObjects === 0 && statusWants === 0)}`,
    ],
  };
  const rows = verbs.map((v) => {
    const c = countsOf(v);
    const t = median(times[v]);
    return [
      v,
      String(c.total),
      String(c.trips),
      String(c.local),
      c.cmds.join(', '),
      ms(t),
      `${ms(floor(v))} (${floorName(v)})`,
      ratio(t, floor(v)),
      ...(target[v]?.(c) ?? ['']),
    ];
  });
  for (const v of /** @type {const} */ (['reserve (free)', 'renew', 'push', 'release'])) {
    const c = countsOf(v);
    record(
      `${v}, warm (${c.trips} round trip${c.trips > 1 ? 's' : ''}, ${c.total} git processes)`,
      median(times[v]),
      'node + fetch + push',
      floor(v),
      2,
    );
  }
  record(`status, nothing changed (${countsOf('status').trips} round trip)`, median(times.status), 'node + fetch', floor('status'), 2);
  return [
    '## 1. Git processes and round trips per verb',
    '',
    `Local \`file://\` remote, warm cache. Counts from a \`git\` wrapper first on PATH (one run); times are medians of ${REPS}.`,
    `Floor, same clone, same run: \`node -e 0\` ${ms(n)} + no-op \`git fetch origin '${RAW_SPEC}'\` ${ms(f)} (+ \`git push\` of one new commit with a lease ${ms(p)} for verbs that write).`,
    '',
    table(['verb', 'git spawns', 'round trips', 'local', 'git commands, in order', 'abcd', 'raw git floor', 'ratio', 'target'], rows),
    '',
  ].join('\n');
}
