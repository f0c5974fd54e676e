// Nothing secret in any folder the sandbox can see, whatever TMPDIR is: the credential channel
// the lane opens for its own git calls while the agent runs is out of the agent's reach, and
// what the agent prints reaches the remote's record bounded and scrubbed of anything that
// looks like a token, while the whole of it, scrubbed the same way, stays in a local log under
// the clone's git dir.
import { generateKeyPairSync } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv, QUIET_CONFIG, tempDir } from '../../harness/git-env.js';
import { startGitHubRemote, type GitHubRemote } from '../../harness/github-remote.js';
import { laneRun, laneSession, remoteWithItems } from '../../harness/lanes.js';

const TOKEN = 'ghs_laneChannelCanary0123456789abcdefXYZ';

/**
 * The attacker: walks the whole filesystem it can see for sockets and abcd's files, then for
 * ten seconds re-reads every folder where abcd's names showed up, asking any `s` socket that
 * appears for the host's credential. Prints what it found, then exits 3 (its tail is kept).
 */
const SCANNER = String.raw`
const fs = require('fs'), path = require('path'), net = require('net');
const host = process.argv[1];
const skip = new Set(['/proc', '/sys', '/dev', '/usr', '/lib', '/lib64', '/bin', '/sbin', '/etc']);
const sockets = new Set(), files = new Set(), watched = new Set(), answers = [];
function walk(d, depth) {
  if (depth > 12 || skip.has(d)) return;
  let es; try { es = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
  for (const e of es) {
    const p = path.join(d, e.name);
    if (e.name.startsWith('abcd-')) watched.add(d);
    if (e.isSocket()) sockets.add(p);
    else if (e.isDirectory() && e.name !== 'node_modules') walk(p, depth + 1);
    else if (e.isFile() && p.includes('abcd-')) files.add(p);
  }
}
function ask(s) {
  return new Promise((resolve) => {
    const c = net.connect(s); let out = '';
    c.on('error', () => resolve());
    c.on('connect', () => c.end('protocol=http\nhost=' + host + '\n\n'));
    c.on('data', (d) => (out += d));
    c.on('end', () => { answers.push(s + ' => ' + out.replace(/\n/g, ' ')); resolve(); });
    setTimeout(() => { c.destroy(); resolve(); }, 2000);
  });
}
(async () => {
  walk('/', 0);
  const until = Date.now() + 10000;
  while (Date.now() < until) {
    for (const d of watched) walk(d, 10);
    for (const s of sockets) if (!answers.some((a) => a.startsWith(s + ' '))) await ask(s);
    await new Promise((r) => setTimeout(r, 20));
  }
  let read = '';
  for (const f of files) { try { read += fs.readFileSync(f, 'utf8').slice(0, 4000); } catch {} }
  console.log('FILES ' + [...files].join(' '));
  console.log('ANSWERS ' + answers.join(' | '));
  console.log('READ-HAS-TOKEN ' + read.includes('ghs_'));
  console.log('SOCKET-PATHS ' + [...sockets].join(' '));
  console.log('SOCKETS ' + sockets.size + ' ANSWERED ' + answers.filter((a) => a.includes('password=')).length);
  process.exit(3);
})();
`;

/** Items on the served remote's main, pushed straight into the bare repository. */
async function seedItems(gh: GitHubRemote, slugs: string[], config: unknown): Promise<void> {
  const root = await tempDir('seed');
  const env = isolatedEnv(root);
  const seed = join(root, 'seed');
  await git(root, ['clone', '-q', gh.remote.dir, seed], env);
  for (const [k, v] of QUIET_CONFIG) await git(seed, ['config', k, v], env);
  await mkdir(join(seed, '.abcd/items'), { recursive: true });
  for (const s of slugs) await writeFile(join(seed, `.abcd/items/${s}.md`), `---\ntitle: ${s}\nstatus: ready\n---\nWork on ${s}.\n`);
  await writeFile(join(seed, '.abcd/config.json'), JSON.stringify(config));
  await git(seed, ['add', '.'], env);
  await git(seed, ['commit', '-q', '-m', 'items'], env);
  await git(seed, ['push', '-q', 'origin', 'main'], env);
}

/** Every file of the run's local logs, read whole. */
async function readLogs(gitDir: string, runId: string): Promise<string> {
  const dir = join(gitDir, 'abcd/logs', runId);
  let all = '';
  for (const f of await readdir(dir)) all += await readFile(join(dir, f), 'utf8');
  return all;
}

describe('secrets out of the sandbox', () => {
  let gh: GitHubRemote;
  let outside: string;

  beforeAll(async () => {
    gh = await startGitHubRemote(TOKEN);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await writeFile(join(gh.config, 'app-key.pem'), privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
    await writeFile(join(gh.config, 'app.json'), JSON.stringify({ v: 1, appId: '4242', keyFile: 'app-key.pem' }) + '\n', { mode: 0o600 });
    // Folders outside /tmp, which the sandbox's private /tmp does not cover: the lane's TMPDIR
    // and abcd's config folder (where the App's key is).
    outside = await mkdtemp('/var/tmp/abcd-lanetmp-');
    await mkdir(join(outside, 'tmp'));
    await cp(gh.config, join(outside, 'config'), { recursive: true });
  });
  afterAll(async () => {
    await gh.stop();
    await rm(outside, { recursive: true, force: true });
    await cleanupTemp();
  });

  it('with TMPDIR outside /tmp the agent finds no socket or file of abcd holding the token, and no answer or record holds it', async () => {
    const { stub, owner, repo, remote } = gh;
    stub.on({
      method: 'GET',
      path: `/repos/${owner}/${repo}/installation`,
      reply: { body: { id: 42, app_slug: 'abcd-lanes' } },
      times: 'many',
    });
    stub.on({
      method: 'POST',
      path: '/app/installations/42/access_tokens',
      reply: { status: 201, body: { token: TOKEN, expires_at: new Date(Date.now() + 3_600_000).toISOString() } },
      times: 'many',
    });
    // The lane's own git calls come often while the agent runs: the watcher's looks and renewals.
    await seedItems(gh, ['scan'], { lanes: { steer: { poll: '500ms' } } });
    const s = await gh.session('scanner');
    const host = new URL(gh.server.url('x')).host;
    const agent = `${JSON.stringify(process.execPath)} -e ${shellQuote(SCANNER)} ${host}`;
    const r = await s.abcd(['build', 'scan', '--json', '--sandbox', 'bwrap', '--ttl', '2s', '--agent', agent], {
      env: { TMPDIR: join(outside, 'tmp'), ABCD_CONFIG_DIR: join(outside, 'config') },
      timeoutMs: 90_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const cycle = laneRun(r).record.cycles[0];
    expect(cycle).toMatchObject({ item: 'scan', outcome: 'failed', code: 'agent-failed' });
    // The only sockets in reach are the sandbox's own way out (the egress proxy), and none answers a credential request.
    expect(cycle.reason).toMatch(/SOCKETS \d+ ANSWERED 0/);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    const record = (await execa('git', ['-C', remote.dir, 'show', `${laneRun(r).ref}:record.json`], { reject: false })).stdout;
    expect(record).toMatch(/ANSWERED 0/);
    expect(record).not.toContain(TOKEN);
    // The whole output is in the local log: the scan ran, saw its own cycle folder, found nothing.
    const log = await readLogs(join(s.dir, '.git'), laneRun(r).runId);
    if (process.env.SHOW_SCAN) console.log(log);
    expect(log).toMatch(/FILES .*abcd-lane-/);
    expect(log).toContain('READ-HAS-TOKEN false');
    const socketPaths = (/SOCKET-PATHS (.*)/.exec(log)?.[1] ?? '').split(' ').filter(Boolean);
    expect(
      socketPaths.every((p) => /-net-[^/]+\/proxy\.sock$/.test(p)),
      socketPaths.join(' '),
    ).toBe(true);
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain('password=');
  }, 120_000);

  it("the record keeps a bounded tail with tokens and keys scrubbed; the local log keeps the agent's output whole but them", async () => {
    const remote = await remoteWithItems([{ slug: 'loud' }]);
    const s = await laneSession(remote, 'loud');
    const fake = {
      ghs: 'ghs_0123456789abcdefghijABCDEFGHIJ012345',
      pat: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN',
      sk: 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789',
      pem: 'MIIEowIBAAKCAQEAcanarykeybodyline',
    };
    const agent = [
      `seq 1 5000 | sed 's/^/filler line /'`,
      `echo "token ${fake.ghs} and ${fake.pat}"`,
      `printf -- '-----BEGIN RSA PRIVATE KEY-----\\n${fake.pem}\\n-----END RSA PRIVATE KEY-----\\n'`,
      `echo "model key ${fake.sk}"`,
      'exit 1',
    ].join('; ');
    const r = await s.abcd(['build', 'loud', '--json', '--agent', agent]);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const cycle = laneRun(r).record.cycles[0];
    expect(cycle).toMatchObject({ outcome: 'failed', code: 'agent-failed' });
    expect(cycle.reason.length).toBeLessThanOrEqual(500);
    expect(cycle.reason).toMatch(/model key/);
    const record = (await execa('git', ['-C', remote.dir, 'show', `${laneRun(r).ref}:record.json`])).stdout;
    for (const text of [cycle.reason as string, record, r.stdout])
      for (const secret of Object.values(fake)) expect(text, secret).not.toContain(secret);
    const log = await readLogs(join(s.dir, '.git'), laneRun(r).runId);
    expect(log).toContain('filler line 1\n');
    expect(log).toContain('filler line 5000\n');
    // The log is scrubbed too: a person pastes it into an issue, a backup carries the git dir away.
    for (const secret of Object.values(fake)) expect(log).not.toContain(secret);
    expect(log).toContain('token ghs_[scrubbed] and github_pat_[scrubbed]');
    expect(log).toContain('-----PEM block [scrubbed]-----');
  }, 90_000);
});

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
