#!/usr/bin/env node
// What a sandbox's own network costs at its start: the same bubblewrap sandbox running
// `/bin/true`, interleaved three ways in one run. "before": the sandbox as it was before it had
// a network namespace (the host's network, no relay). "netns": with `--unshare-net` alone.
// "netns + node -e 0": the relay's node alone, started in the sandbox and doing nothing.
// "netns + socat relay": what every agent and check sandbox starts with where socat is installed:
// abcd's egress proxy opened on its private socket, `--unshare-net`, and a shell that starts
// socat listening on the sandbox's loopback, waits until it listens and execs the command; the
// proxy closed afterwards. "netns + node relay": the same with the node relay (the node that runs
// abcd; what runs without socat). Prints the medians, what each adds over "before", and the
// ratio (target: under 50 ms added).
//
//   npm run build && node bench/sandbox-network.mjs [reps=20]
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILD, median, ms, NODE, ratio, spawnAsync } from './lib.mjs';

const REPS = Number(process.argv[2] ?? 20);
// The added start-up the network may cost a sandbox.
const TARGET_MS = 50;
const { bwrapArgs, sandboxArgv } = await import(join(BUILD, 'dist/machine/sandbox/bwrap.js'));
const { openSandboxNetwork } = await import(join(BUILD, 'dist/machine/sandbox/sandbox-network.js'));
const load = () => (loadavg()[0] ?? 0).toFixed(2);
const loadBefore = load();
const root = mkdtempSync(join(tmpdir(), 'abcd-bench-netns-'));
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const plan = { hide: [], binds: [{ path: root, writable: true }], chdir: root };

/** @param {string[]} argv */
async function timed(argv) {
  const t0 = performance.now();
  const r = await spawnAsync(argv[0] ?? 'bwrap', argv.slice(1), { cwd: root, env });
  if (r.code !== 0) throw new Error(`${argv.slice(0, 3).join(' ')} ... exited ${r.code}: ${r.stderr}`);
  return performance.now() - t0;
}

/** @type {Record<string, () => Promise<number>>} */
const probes = {
  // The floor of any relay that is a node program: one node start-up, on its own.
  'node -e 0 (no sandbox)': () => timed([NODE, '-e', '0']),
  // The arguments as they were: no --unshare-net.
  before: () => timed(['bwrap', ...bwrapArgs(plan).filter((/** @type {string} */ a) => a !== '--unshare-net'), '--', '/bin/true']),
  netns: () => timed(sandboxArgv(plan, ['/bin/true'])),
  // What the relay is made of, without the proxy and the spawn: the same node started inside.
  'netns + node -e 0': () => timed(sandboxArgv({ ...plan, binds: [...plan.binds, { path: NODE }] }, [NODE, '-e', '0'])),
  'netns + socat relay': () => withRelay(process.env.PATH ?? '/usr/bin:/bin', 'socat'),
  // A PATH without socat: the node relay.
  'netns + node relay': () => withRelay('/nonexistent', 'node'),
};

/** @param {string} path @param {string} relay */
async function withRelay(path, relay) {
  const t0 = performance.now();
  const net = await openSandboxNetwork({ base: join(root, 'cycle'), node: NODE, path, allow: [], allowKey: 'bench' });
  try {
    if (net.relay !== relay) throw new Error(`wanted the ${relay} relay, got ${net.relay} (is socat installed?)`);
    await timed(sandboxArgv({ ...plan, binds: [...plan.binds, ...net.binds], inside: net.prefix }, ['/bin/true']));
  } finally {
    await net.close();
  }
  return performance.now() - t0;
}

try {
  /** @type {Record<string, number[]>} */
  const seen = Object.fromEntries(Object.keys(probes).map((k) => [k, []]));
  for (const p of Object.values(probes)) await p(); // warm
  for (let i = 0; i < REPS; i++) for (const [k, p] of Object.entries(probes)) seen[k]?.push(await p());
  const m = Object.fromEntries(Object.entries(seen).map(([k, xs]) => [k, median(xs)]));
  const before = m.before ?? 0;
  const node = m['node -e 0 (no sandbox)'] ?? 0;
  console.log(
    `a bubblewrap sandbox running /bin/true, median of ${REPS} each, interleaved (node ${process.version}, load ${loadBefore} -> ${load()})`,
  );
  console.log('| sandbox | start | adds | ratio |');
  console.log('|---|---|---|---|');
  for (const [k, v] of Object.entries(m))
    if (k !== 'node -e 0 (no sandbox)') console.log(`| ${k} | ${ms(v)} | ${ms(v - before)} | ${ratio(v, before)} |`);
  for (const k of ['netns + socat relay', 'netns + node relay']) {
    const added = (m[k] ?? 0) - before;
    console.log(`${k} adds ${ms(added)} (target < ${TARGET_MS} ms: ${added < TARGET_MS ? 'met' : '**missed**'})`);
  }
  console.log(`\`node -e 0\` alone took ${ms(node)} in the same run, the node relay's floor`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
