#!/usr/bin/env node
// abcd's main job on an embedded default: a throwaway local bare remote, three sessions
// racing to reserve and push items, ending in `abcd status`. No account, no network.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const bin = resolve(import.meta.dirname, '../bin/abcd');
const root = mkdtempSync(join(tmpdir(), 'abcd-demo-'));
const base = { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', LANG: 'C' };
const git = (cwd, args, env = base) => execFileSync('git', ['-C', cwd, ...args], { env, encoding: 'utf8' }).trim();

function step(text) {
  console.log(`\n== ${text}`);
}

function abcd(s, args) {
  return new Promise((done) => {
    const p = spawn(process.execPath, [bin, ...args], { cwd: s.dir, env: s.env });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('close', (code) => done({ code, out: out.trim() }));
  });
}

try {
  step(`a throwaway bare remote in ${root}`);
  const remote = join(root, 'remote.git');
  git(root, ['init', '-q', '--bare', '-b', 'main', remote]);
  const seed = join(root, 'seed');
  git(root, ['init', '-q', '-b', 'main', seed]);
  writeFileSync(join(seed, 'README.md'), '# demo project\n');
  const who = ['-c', 'user.name=seed', '-c', 'user.email=seed@example.com', '-c', 'commit.gpgsign=false'];
  git(seed, ['add', '.']);
  git(seed, [...who, 'commit', '-q', '-m', 'initial']);
  git(seed, ['push', '-q', remote, 'main']);

  const sessions = ['ada', 'grace', 'linus'].map((name) => {
    const home = join(root, name);
    mkdirSync(home);
    const env = { ...base, HOME: home, ABCD_SESSION: name, ABCD_MACHINE_DIR: join(root, 'machine') };
    const dir = join(home, 'work');
    git(root, ['clone', '-q', `file://${remote}`, dir], env);
    git(dir, ['config', 'user.email', `${name}@example.com`], env);
    git(dir, ['config', 'user.name', name], env);
    git(dir, ['config', 'commit.gpgsign', 'false'], env);
    return { name, dir, env };
  });
  console.log(`three sessions, each in its own clone: ${sessions.map((s) => s.name).join(', ')}`);

  step('all three race to reserve "fix-login" at once: exactly one wins');
  const race = await Promise.all(sessions.map((s) => abcd(s, ['reserve', 'fix-login', '--ttl', '10m', '--note', `${s.name} is on it`])));
  race.forEach((r, i) => console.log(`${sessions[i].name}: exit ${r.code}: ${r.out}`));

  step('the others each take an item of their own');
  const losers = sessions.filter((_, i) => race[i].code !== 0);
  const items = ['add-search', 'docs-typo'];
  for (const [i, s] of losers.entries()) console.log(`${s.name}: ${(await abcd(s, ['reserve', items[i], '--ttl', '5m'])).out}`);

  step('every session commits on a work branch and pushes it fenced by its claim');
  const mine = new Map(sessions.map((s, i) => [s.name, race[i].code === 0 ? 'fix-login' : items[losers.indexOf(s)]]));
  for (const s of sessions) {
    const item = mine.get(s.name);
    git(s.dir, ['checkout', '-q', '-b', `work/${item}`], s.env);
    writeFileSync(join(s.dir, `${item}.txt`), `${s.name} worked on ${item}\n`);
    git(s.dir, ['add', '.'], s.env);
    git(s.dir, ['commit', '-q', '-m', `${item}: first pass`], s.env);
    console.log(`${s.name}: ${(await abcd(s, ['push', item])).out}`);
  }

  step('a session that does not hold an item cannot push under it (exit 3)');
  const intruder = losers[0];
  const r = await abcd(intruder, ['push', 'fix-login']);
  console.log(`${intruder.name}: exit ${r.code}: ${r.out}`);

  step('one session releases its item');
  console.log(`${losers[1].name}: ${(await abcd(losers[1], ['release', mine.get(losers[1].name)])).out}`);

  step('the two holders land their work at once: the queue takes them in turn, each rebased onto main');
  const landers = sessions.filter((s) => s !== losers[1]);
  const lands = await Promise.all(landers.map((s) => abcd(s, ['land', mine.get(s.name), '--wait', '2m'])));
  lands.forEach((r, i) => console.log(`${landers[i].name}: exit ${r.code}: ${r.out}`));
  console.log(git(root, ['--git-dir', remote, 'log', '--oneline', 'main']));

  step('abcd status: everyone\'s state in one round trip');
  console.log((await abcd(sessions[0], ['status'])).out);
} finally {
  rmSync(root, { recursive: true, force: true });
}
