#!/usr/bin/env node
// What the claude runtime costs besides the model, against the command runtime (a report, not
// a test). Both run a no-op agent (one small commit) in a real `abcd build` with bubblewrap; the
// claude one is the real CLI against the scripted model server (test/harness), which answers at
// once, so the difference is Claude Code's own start-up, tool calls and shut-down. Then the
// steer delivery latency of a live Claude Code session: from the envelope written on its stdin
// to the model server seeing it in a request (and to the CLI's replay, which abcd counts as
// delivered), while the agent works in short tool calls. Medians of --rounds (default 10).
//   npm run build && node bench/runtime-overhead.mjs [--rounds 10]
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { ABCD, BUILD, cleanupAll, cloneFor, git, makeRemote, median, ms, NODE, sandbox, spawnAsync, table } from './lib.mjs';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 10;
const CLAUDE = resolve(import.meta.dirname, '../node_modules/.bin/claude');
const NOOP = 'echo "$ABCD_ITEM" > out.txt && git add -A && git commit -qm "agent: $ABCD_ITEM"';
const NOOP_BASH = 'echo claude > out.txt && git add -A && git commit -qm "agent: claude"';
// Node strips the harness's types when it loads it (a path tsc does not follow).
const STUB_PATH = resolve(import.meta.dirname, '../test/harness/model-server-anthropic.ts');
const stubs = await import(STUB_PATH);
const { claudeRuntime } = await import(join(BUILD, 'dist/lanes/runtimes/claude/claude.js'));

/**
 * One `abcd build` per item, command and claude interleaved; answers each one's wall time and agent time.
 * @param {any} stub
 */
async function cycleOverhead(stub) {
  const { root, env } = sandbox('runtime');
  const bare = makeRemote(root, env);
  const seed = cloneFor(bare, join(root, 'items'), env);
  mkdirSync(join(seed, '.abcd/items'), { recursive: true });
  const items = [];
  for (let i = 0; i <= rounds; i++) for (const kind of ['cmd', 'cl']) items.push(`${kind}-${i}`);
  for (const slug of items)
    writeFileSync(join(seed, `.abcd/items/${slug}.md`), `---\ntitle: ${slug}\nstatus: ready\n---\nWork on ${slug}.\n`);
  const config = { lanes: { claude: { program: CLAUDE, env: ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY'] } } };
  writeFileSync(join(seed, '.abcd/config.json'), JSON.stringify(config));
  git(seed, ['add', '.'], env);
  git(seed, ['commit', '-q', '-m', 'items'], env);
  git(seed, ['push', '-q', 'origin', 'main'], env);
  const dir = cloneFor(bare, join(root, 'lane'), env);
  const laneEnv = { ...env, ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: 'sk-bench' };
  /** @type {Record<'command' | 'claude', { wall: number[], agent: number[] }>} */
  const t = { command: { wall: [], agent: [] }, claude: { wall: [], agent: [] } };
  for (let i = 0; i <= rounds; i++) {
    stub.on(`local:item:cl-${i}`, [stubs.toolStep(stubs.tool.bash(NOOP_BASH), { input: 10, output: 5 }), stubs.answer('done')]);
    for (const [name, args] of /** @type {const} */ ([
      ['command', ['build', `cmd-${i}`, '--runtime', 'command', '--agent', NOOP, '--json']],
      ['claude', ['build', `cl-${i}`, '--runtime', 'claude', '--json']],
    ])) {
      const r = await spawnAsync(NODE, [ABCD, ...args], { cwd: dir, env: laneEnv });
      const out = JSON.parse(r.stdout);
      if (r.code !== 0 || out.outcome !== 'landed') throw new Error(`${name} build ${i}: ${r.stdout}${r.stderr}`);
      // Round 0 warms the caches and is not counted.
      if (i === 0) continue;
      t[name].wall.push(r.ms);
      t[name].agent.push(out.record.cycles[0].agentMs);
    }
  }
  return t;
}

/**
 * A live session; per round one turn whose agent loops on short Bash calls until the steer
 * arrives. Answers the latencies to the model server's request and to the CLI's replay.
 * @param {any} stub
 */
async function steerLatency(stub) {
  const { root } = sandbox('steer');
  const wt = join(root, 'wt');
  for (const d of [wt, join(root, 'home'), join(root, 'tmp')]) mkdirSync(d, { recursive: true });
  /** @type {Map<string, number>} */
  const seenAt = new Map();
  let turnRequests = 0;
  stub.on('round 0', [
    (/** @type {any} */ req) => {
      turnRequests++;
      // The history holds the earlier rounds' steers too: the new one is the one not seen yet.
      const n = [...stubs.requestText(req).matchAll(/STEER-(\d+)/g)].map((m) => m[1]).find((x) => !seenAt.has(x));
      if (n !== undefined && !seenAt.has(n)) {
        seenAt.set(n, performance.now());
        return { ...stubs.answer('steered'), repeat: true };
      }
      return { ...stubs.toolStep(stubs.tool.bash('sleep 0.05')), repeat: true };
    },
  ]);
  const session = await claudeRuntime(
    { program: CLAUDE, env: ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY'] },
    {
      ANTHROPIC_BASE_URL: stub.url,
      ANTHROPIC_API_KEY: 'sk-bench',
    },
  ).open({
    env: { PATH: '/usr/bin:/bin', HOME: join(root, 'home'), TMPDIR: join(root, 'tmp') },
    sandbox: 'bwrap',
    plan: { hide: [], binds: [{ path: root, writable: true }], chdir: wt },
    marker: `ABCD_WORKTREE=${wt}`,
    cycleDir: root,
    mailbox: join(root, 'mailbox'),
    usageFile: join(root, 'usage'),
    promptFile: join(root, 'prompt'),
    now: () => Date.now(),
  });
  /** @type {{ model: number[], replay: number[] }} */
  const t = { model: [], replay: [] };
  for (let i = 0; i <= rounds; i++) {
    turnRequests = 0;
    const turn = session.turn(`round ${i}: work until a steer comes`, { kind: 'task', timeoutMs: 60_000 });
    while (turnRequests < 2) await new Promise((r) => setTimeout(r, 20));
    // Somewhere inside the agent's loop of tool calls.
    await new Promise((r) => setTimeout(r, Math.random() * 200));
    const t0 = performance.now();
    const taken = await session.steer(`STEER-${i} please stop looping`);
    const t1 = performance.now();
    const done = await turn;
    if (!taken || done.exitCode !== 0) throw new Error(`round ${i}: steer taken ${taken}, turn ${JSON.stringify(done)}`);
    if (i === 0) continue;
    t.model.push(/** @type {number} */ (seenAt.get(String(i))) - t0);
    t.replay.push(t1 - t0);
  }
  await session.close();
  return t;
}

const stub = await stubs.AnthropicStub.start();
try {
  const load = loadavg()[0]?.toFixed(2);
  const c = await cycleOverhead(stub);
  const row = (/** @type {string} */ what, /** @type {number[]} */ a, /** @type {number[]} */ b) => [
    what,
    ms(median(a)),
    ms(median(b)),
    ms(median(b) - median(a)),
  ];
  console.log(`\nRuntime overhead, median of ${rounds} (load ${load} at start, node ${process.versions.node}):\n`);
  console.log(
    table(
      ['per cycle', 'command', 'claude', 'claude adds'],
      [row('`abcd build`, wall', c.command.wall, c.claude.wall), row('agent phase (`agentMs`)', c.command.agent, c.claude.agent)],
    ),
  );
  const s = await steerLatency(stub);
  console.log(`\nSteer delivery to a live Claude Code session, median of ${rounds}:\n`);
  console.log(
    table(
      ['from the envelope written on stdin to', 'median', 'max'],
      [
        ['the CLI replaying it (delivered)', ms(median(s.replay)), ms(Math.max(...s.replay))],
        ['the model server seeing it', ms(median(s.model)), ms(Math.max(...s.model))],
      ],
    ),
  );
} finally {
  await stub.close();
  cleanupAll();
}
