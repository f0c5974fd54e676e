#!/usr/bin/env node
// Lanes: what a cycle costs besides the agent, against raw git doing the same fetch,
// worktree, commit, push and land (fast-forward push of main) in the same run; and drain
// throughput with a no-op agent (one small commit) for 1, 2 and 4 lanes.
//   node bench/lanes.mjs            (after npm run build)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { abcd, cleanupAll, cloneFor, git, makeRemote, median, ms, ratio, sandbox, table } from './lib.mjs';

const ROUNDS = 5;
const NOOP_AGENT = 'echo "$ABCD_ITEM" > "out-$(printf %s "$ABCD_ITEM" | tr : -).txt" && git add -A && git commit -qm "agent: $ABCD_ITEM"';

/** A remote whose main holds `n` ready items, and a clone set up for abcd. */
function itemRemote(name, n) {
  const { root, env } = sandbox(name);
  const bare = makeRemote(root, env);
  const seed = join(root, 'items');
  git(root, ['clone', '-q', `file://${bare}`, seed], env);
  mkdirSync(join(seed, '.abcd/items'), { recursive: true });
  for (let i = 0; i < n; i++) writeFileSync(join(seed, `.abcd/items/item-${i}.md`), `---\ntitle: item ${i}\nstatus: ready\n---\nbench\n`);
  git(seed, ['add', '.'], env);
  git(seed, ['-c', 'user.name=seed', '-c', 'user.email=seed@example.com', 'commit', '-q', '-m', 'items'], env);
  git(seed, ['push', '-q', 'origin', 'main'], env);
  const dir = cloneFor(bare, join(root, 'clone'), env);
  return { root, env: { ...env, ABCD_GATE_SLOTS: '4' }, bare, dir };
}

/** Raw git doing a cycle's git work: fetch main, a worktree, one commit, push the branch, land it, clean up. */
function rawCycle(r, i) {
  const t0 = performance.now();
  git(r.dir, ['fetch', '-q', 'origin', 'main'], r.env);
  const wt = join(r.root, `raw-wt-${i}`);
  git(r.dir, ['worktree', 'add', '-q', '--detach', wt, 'FETCH_HEAD'], r.env);
  writeFileSync(join(wt, `raw-${i}.txt`), `${i}\n`);
  git(wt, ['add', '-A'], r.env);
  git(wt, ['commit', '-q', '-m', `raw ${i}`], r.env);
  git(wt, ['push', '-q', 'origin', `HEAD:refs/heads/work/raw-${i}`], r.env);
  git(wt, ['push', '-q', 'origin', 'HEAD:main', `:refs/heads/work/raw-${i}`], r.env);
  git(r.dir, ['worktree', 'remove', '--force', wt], r.env);
  return performance.now() - t0;
}

/** One `abcd build` cycle, wall time minus the agent's own time (as abcd measured it). */
function laneCycle(r, i) {
  const t0 = performance.now();
  const out = abcd(r.dir, ['build', `item-${i}`, '--json', '--sandbox', 'bwrap', '--agent', NOOP_AGENT], r.env);
  const wall = performance.now() - t0;
  const cycle = JSON.parse(out.stdout.trim().split('\n').at(-1)).record.cycles[0];
  if (cycle.outcome !== 'landed') throw new Error(`bench cycle did not land: ${JSON.stringify(cycle)}`);
  return { wall, overhead: wall - cycle.agentMs, agent: cycle.agentMs };
}

export async function benchLanes() {
  const r = itemRemote('lanes-cycle', ROUNDS);
  const raw = [];
  const lane = [];
  for (let i = 0; i < ROUNDS; i++) {
    raw.push(rawCycle(r, i));
    lane.push(laneCycle(r, i));
  }
  const rawMed = median(raw);
  const overhead = median(lane.map((l) => l.overhead));
  const rows = [
    ['raw git: fetch, worktree, commit, push, land, remove', ms(rawMed), '1.00x'],
    ['abcd build: one cycle, all but the agent', ms(overhead), ratio(overhead, rawMed)],
    ['  (the no-op agent itself, in bubblewrap)', ms(median(lane.map((l) => l.agent))), ''],
  ];
  const through = [];
  const N = 12;
  // A no-op agent measures the lanes and the land queue alone; a 2 s agent, what lanes are for.
  for (const [agent, label] of [[NOOP_AGENT, 'no-op'], [`sleep 2; ${NOOP_AGENT}`, '2 s agent']]) {
    for (const lanes of [1, 2, 4]) {
      const t = itemRemote(`lanes-drain-${lanes}`, N);
      const t0 = performance.now();
      const out = abcd(t.dir, ['drain', '--json', '--lanes', String(lanes), '--sandbox', 'bwrap', '--agent', agent], t.env, { ok: [0, 3] });
      const wall = performance.now() - t0;
      const landed = JSON.parse(out.stdout.trim().split('\n').at(-1)).record.cycles.filter((c) => c.outcome === 'landed').length;
      through.push([label, String(lanes), `${landed}/${N}`, ms(wall), `${((landed / wall) * 60_000).toFixed(1)}`]);
    }
  }
  return [
    `### Lanes: one cycle's overhead (median of ${ROUNDS}) against raw git in the same run (target <= 2x)`,
    '',
    table(['what', 'median', 'ratio'], rows),
    '',
    `### Lanes: drain throughput, ${N} items, agent = one small commit (after 2 s of sleep in the second half), under bubblewrap`,
    '',
    table(['agent', 'lanes', 'landed', 'wall', 'items/min'], through),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(await benchLanes());
  } finally {
    cleanupAll();
  }
}
