// 1. Per verb: git processes spawned, network round trips, time against the raw git floor.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  abcd,
  classify,
  cloneFor,
  fastImportClaims,
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
  const empty = measurePlace('empty remote', 0);
  const big = measurePlace('1,000 claims', 1000);
  const verbs = /** @type {const} */ (['reserve (free)', 'renew', 'push', 'release', 'announce']);
  // reserve of a free item at 1,000 claims reads only its own claim: within 1.5x; every other verb within 2x.
  /** @type {(place: typeof empty, v: string) => number} */
  const limit = (place, v) => (place === big && v === 'reserve (free)' ? 1.5 : 2);
  for (const place of [empty, big]) {
    const at = place === empty ? '' : `, ${place.name}`;
    for (const v of verbs) {
      const c = place.countsOf(v);
      const trips = `${c.trips} round trip${c.trips > 1 ? 's' : ''}, ${c.total} git processes`;
      record(`${v}, warm${at} (${trips})`, median(place.times[v]), 'node + fetch + push', place.floor(v), limit(place, v));
    }
  }
  record(
    `status, nothing changed (${empty.countsOf('status').trips} round trip)`,
    median(empty.times.status),
    'node + fetch',
    empty.floor('status'),
    2,
  );
  return [
    '## 1. Git processes and round trips per verb',
    '',
    `Local \`file://\` remote, warm cache. Counts from a \`git\` wrapper first on PATH (one run); times are medians of ${REPS}.`,
    'Floor, same clone, same run: `node -e 0` + a no-op `git fetch` of the records (+ `git push` of one new commit with a lease for verbs that write).',
    '',
    ...[empty, big].flatMap((place) => [
      `### ${place.name[0]?.toUpperCase()}${place.name.slice(1)}`,
      '',
      place.floorLine,
      '',
      place.table,
      '',
    ]),
  ].join('\n');
}

/**
 * Every everyday verb, counted once through the git wrapper and timed REPS times, in a remote
 * holding `claims` live claims of someone else's, each rep beside the raw floor in the same clone.
 * @param {string} name
 * @param {number} claims
 */
function measurePlace(name, claims) {
  const { root, env } = sandbox(`verbs-${claims}`);
  const bare = makeRemote(root, env);
  if (claims) fastImportClaims(bare, claims, env);
  const envA = { ...env, ABCD_SESSION: 'alice' };
  const envB = { ...env, ABCD_SESSION: 'bob' };
  const a = cloneFor(bare, join(root, 'a'), envA, 'alice@example.com');
  const b = cloneFor(bare, join(root, 'b'), envB, 'bob@example.com');
  abcd(a, ['status'], envA); // both caches exist before anything is measured
  abcd(b, ['status'], envB);
  git(a, ['fetch', '-q', 'origin', RAW_SPEC], envA); // the raw floor's refs exist: its fetch is a no-op, as abcd's is
  const logger = gitLogger(root);

  const verbs = /** @type {const} */ (['reserve (free)', 'reserve (held)', 'renew', 'push', 'release', 'announce', 'status']);
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
    const item = `item-b${rep}`;
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
    step('announce', a, ['announce', 'working', `bench ${rep}`], envA);
    abcd(a, ['status'], envA); // sees the writes; the next status has nothing new to read
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
  const head = ['verb', 'git spawns', 'round trips', 'local', 'git commands, in order', 'abcd', 'raw git floor', 'ratio', 'target'];
  return {
    name,
    times,
    countsOf,
    floor,
    floorLine: `Floor: \`node -e 0\` ${ms(n)} + no-op \`git fetch origin '${RAW_SPEC}'\` ${ms(f)} (+ leased \`git push\` ${ms(p)}).`,
    table: table(head, rows),
  };
}
