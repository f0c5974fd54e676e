#!/usr/bin/env node
// abcd's main job on an embedded default: a throwaway bare remote holding six items (two
// wait on others), a scripted agent, and `abcd drain` with three lanes building and landing
// every item through the queue; then `abcd status`. No account, no network, no model.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const bin = resolve(import.meta.dirname, '../bin/abcd');
const root = mkdtempSync(join(tmpdir(), 'abcd-demo-'));
const base = { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', LANG: 'C' };
/** @type {(cwd: string, args: string[], env?: NodeJS.ProcessEnv) => string} */
const git = (cwd, args, env = base) => execFileSync('git', ['-C', cwd, ...args], { env, encoding: 'utf8' }).trim();

const ITEMS = [
  { slug: 'add-greeting', file: 'src/greeting.txt', append: 'Hello' },
  { slug: 'add-farewell', file: 'src/farewell.txt', append: 'Goodbye' },
  { slug: 'docs-usage', file: 'docs/usage.md', append: '# Usage' },
  { slug: 'add-license', file: 'LICENSE.txt', append: 'MIT' },
  { slug: 'greet-by-name', file: 'src/greeting.txt', append: 'Hello, {name}', depends: ['add-greeting'] },
  { slug: 'docs-examples', file: 'docs/usage.md', append: 'Example: greet ada', depends: ['docs-usage'] },
];

/** @param {string} text */
function step(text) {
  console.log(`\n== ${text}`);
}

/**
 * @param {{ dir: string, env: NodeJS.ProcessEnv }} s
 * @param {string[]} args
 * @returns {Promise<{ code: number | null, out: string }>}
 */
function abcd(s, args) {
  return new Promise((done) => {
    const p = spawn(process.execPath, [bin, ...args], { cwd: s.dir, env: s.env });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('close', (code) => done({ code, out: out.trim() }));
  });
}

const t0 = Date.now();
try {
  step(`a throwaway bare remote in ${root}, with ${ITEMS.length} items on main`);
  const remote = join(root, 'remote.git');
  git(root, ['init', '-q', '--bare', '-b', 'main', remote]);
  const seed = join(root, 'seed');
  git(root, ['init', '-q', '-b', 'main', seed]);
  writeFileSync(join(seed, 'README.md'), '# demo project\n');
  mkdirSync(join(seed, '.abcd/items'), { recursive: true });
  for (const i of ITEMS) {
    const deps = i.depends ? `depends_on: [${i.depends.join(', ')}]\n` : '';
    writeFileSync(
      join(seed, `.abcd/items/${i.slug}.md`),
      `---\ntitle: ${i.slug}\nstatus: ready\n${deps}---\nfile: ${i.file}\nappend: ${i.append}\n`,
    );
  }
  // The agent travels with the project, so it is inside every lane's worktree (and sandbox).
  mkdirSync(join(seed, 'tools'));
  copyFileSync(resolve(import.meta.dirname, 'demo-agent.sh'), join(seed, 'tools/agent.sh'));
  writeFileSync(
    join(seed, '.abcd/config.json'),
    JSON.stringify({ land: { checks: 'test -f README.md' }, lanes: { agent: 'sh tools/agent.sh' } }, null, 2) + '\n',
  );
  const who = ['-c', 'user.name=seed', '-c', 'user.email=seed@example.com', '-c', 'commit.gpgsign=false'];
  git(seed, ['add', '.']);
  git(seed, [...who, 'commit', '-q', '-m', 'initial: six items and a scripted agent']);
  git(seed, ['push', '-q', remote, 'main']);

  const home = join(root, 'ada');
  mkdirSync(home);
  const s = {
    dir: join(home, 'work'),
    env: { ...base, HOME: home, ABCD_SESSION: 'ada', ABCD_MACHINE_DIR: join(root, 'machine'), ABCD_GATE_SLOTS: '3' },
  };
  git(root, ['clone', '-q', `file://${remote}`, s.dir], s.env);
  for (const [k, v] of /** @type {const} */ ([
    ['user.email', 'ada@example.com'],
    ['user.name', 'ada'],
    ['commit.gpgsign', 'false'],
  ]))
    git(s.dir, ['config', k, v], s.env);

  step('abcd items: what is ready, and what waits on what');
  console.log((await abcd(s, ['items'])).out);

  const bwrap = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-pid', '--', 'true']).status === 0;
  const sandbox = bwrap ? 'bwrap' : 'none';
  if (!bwrap) console.log('\n(bubblewrap is not available here: the demo runs its own scripted agent unsandboxed)');
  step(
    `abcd drain --lanes 3 --sandbox ${sandbox}: each lane claims an item, runs the agent in a fresh worktree, lands it through the queue`,
  );
  const drain = await abcd(s, ['drain', '--lanes', '3', '--sandbox', sandbox]);
  console.log(`exit ${drain.code}\n${drain.out}`);

  step('main on the remote: every item landed, dependencies after what they depend on');
  console.log(git(root, ['--git-dir', remote, 'log', '--oneline', 'main']));
  console.log(`\nsrc/greeting.txt on main:\n${git(root, ['--git-dir', remote, 'show', 'main:src/greeting.txt'])}`);

  step("abcd status: claims, the lane run's result, in one round trip");
  console.log((await abcd(s, ['status'])).out);
  console.log(`\ndemo finished in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  if (drain.code !== 0) process.exitCode = drain.code;
} finally {
  rmSync(root, { recursive: true, force: true });
}
