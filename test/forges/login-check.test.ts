import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLogin as checkLoginCommand } from '../../src/cli/commands/check-login.js';
import type { GlobalArgs } from '../../src/cli/command.js';
import { reportFailure, reportResult } from '../../src/cli/report.js';
import type { Deps } from '../../src/core/deps.js';
import { resolveForgeHost } from '../../src/forges/forge-host.js';
import { runGhAuthStatus } from '../../src/forges/github/credentials/gh-status.js';
import { assertNoLogin, checkLogin, describeGate } from '../../src/forges/github/credentials/login-check.js';
import { UnsafeEnvironment } from '../../src/core/refusals.js';
import { envConfig } from '../../src/cli/env-config.js';
import { cleanupTemp, git, isolatedEnv, QUIET_CONFIG, tempDir } from '../harness/git-env.js';

// Fake secrets: none of them may appear in anything abcd returns or prints.
const HOSTS_TOKEN = 'gho_FAKEhostsSECRET0001';
const ENV_TOKEN = 'ghp_FAKEenvSECRET0002';
const CRED_PASSWORD = 'ghp_FAKEcredSECRET0003';
const CRED_USER = 'fakeuser-name-0004';
const SECRETS = [HOSTS_TOKEN, ENV_TOKEN, CRED_PASSWORD, CRED_USER];

const hostsYml = (host: string) => `${host}:\n    oauth_token: ${HOSTS_TOKEN}\n    user: someone\n    git_protocol: https\n`;

beforeAll(async () => {
  const r = await execa('gh', ['--version'], { reject: false });
  if (r.exitCode !== 0) throw new Error('gh is not installed: run scripts/ensure-gh.sh (the tests run the real gh)');
});
afterAll(cleanupTemp);

async function freshHome(): Promise<{ home: string; env: Record<string, string> }> {
  const home = await tempDir('login');
  return { home, env: isolatedEnv(home) };
}

function expectNoSecret(text: string): void {
  for (const s of SECRETS) expect(text).not.toContain(s);
}

describe('checkLogin', () => {
  it('finds nothing on a clean HOME, and says a keychain login is out of sight', async () => {
    const { home, env } = await freshHome();
    const check = await checkLogin({ host: 'github.com', env, home });
    expect(check).toEqual({ host: 'github.com', findings: [], unknown: [] });
    const gate = await assertNoLogin({ attended: false, remoteUrl: 'https://github.com/o/r.git', env, home });
    expect(describeGate(gate)).toBe('no login found for github.com (a keychain-only login is out of sight)');
  });

  it('finds a token variable by name, and ignores an empty one', async () => {
    const { home, env } = await freshHome();
    const check = await checkLogin({ host: 'github.com', env: { ...env, GH_TOKEN: ENV_TOKEN, GITHUB_TOKEN: '' }, home });
    expect(check.findings).toEqual([{ place: 'environment variable GH_TOKEN', kind: 'token-variable', variable: 'GH_TOKEN' }]);
    expectNoSecret(JSON.stringify(check));
  });

  it("finds gh's hosts.yml entry in GH_CONFIG_DIR, while the real gh cannot validate it offline", async () => {
    const { home, env } = await freshHome();
    const ghDir = join(home, 'gh-config');
    await mkdir(ghDir);
    await writeFile(join(ghDir, 'hosts.yml'), hostsYml('github.com'));
    const withGh = { ...env, GH_CONFIG_DIR: ghDir };
    // gh 2.23 with a token it cannot validate (no network here) exits 1, like no login at
    // all: which is why the hosts file is read as a signal of its own.
    const started = Date.now();
    expect(await runGhAuthStatus({ host: 'github.com', env: withGh, timeoutMs: 10_000 })).toEqual({
      state: 'not-logged-in',
      exitCode: 1,
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    const check = await checkLogin({ host: 'github.com', env: withGh, home });
    expect(check.findings).toEqual([
      { place: `gh's hosts file ${join(ghDir, 'hosts.yml')}`, kind: 'gh-hosts-file', path: join(ghDir, 'hosts.yml') },
    ]);
    expect((await checkLogin({ host: 'ghe.example.com', env: withGh, home })).findings).toEqual([]);
  });

  it('reads hosts.yml under XDG_CONFIG_HOME when GH_CONFIG_DIR is unset', async () => {
    const { home, env } = await freshHome();
    await mkdir(join(env.XDG_CONFIG_HOME!, 'gh'), { recursive: true });
    await writeFile(join(env.XDG_CONFIG_HOME!, 'gh', 'hosts.yml'), hostsYml('"github.com"'));
    const check = await checkLogin({ host: 'github.com', env, home });
    expect(check.findings.map((f) => f.kind)).toEqual(['gh-hosts-file']);
  });

  it('finds a ~/.git-credentials line for the host and keeps neither user nor password', async () => {
    const { home, env } = await freshHome();
    const lines = [`https://${CRED_USER}:${CRED_PASSWORD}@gitlab.com`, `https://${CRED_USER}:${CRED_PASSWORD}@github.com`];
    await writeFile(join(home, '.git-credentials'), lines.join('\n') + '\n');
    const check = await checkLogin({ host: 'github.com', env, home });
    const path = join(home, '.git-credentials');
    expect(check.findings).toEqual([{ place: `git's credential store ${path}`, kind: 'git-credentials-file', path }]);
    expectNoSecret(JSON.stringify(check));
  });

  it('reports gh as unknown, not logged in, when it is missing or stalls', async () => {
    const { home, env } = await freshHome();
    const missing = await checkLogin({ host: 'github.com', env: { ...env, PATH: join(home, 'empty') }, home });
    expect(missing.unknown).toEqual([{ kind: 'gh-auth-status', reason: 'gh is not installed (not on PATH)' }]);
    // A gh that never answers stands in for one stalled on a network that drops packets.
    const bin = join(home, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'gh'), '#!/bin/sh\nexec sleep 30\n');
    await chmod(join(bin, 'gh'), 0o755);
    const started = Date.now();
    const stalled = await checkLogin({ host: 'github.com', env: { ...env, PATH: `${bin}:${env.PATH}` }, home, timeoutMs: 300 });
    // Far short of the stalled gh's 30 s, whatever a loaded machine adds to the 300 ms.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(stalled.findings).toEqual([]);
    expect(stalled.unknown).toEqual([{ kind: 'gh-auth-status', reason: 'gh auth status gave no answer within 300 ms' }]);
  });
});

describe('assertNoLogin', () => {
  async function homeWithEverything() {
    const { home, env } = await freshHome();
    const ghDir = join(home, 'gh-config');
    await mkdir(ghDir);
    await writeFile(join(ghDir, 'hosts.yml'), hostsYml('github.com'));
    await mkdir(join(env.XDG_CONFIG_HOME!, 'git'), { recursive: true });
    await writeFile(join(env.XDG_CONFIG_HOME!, 'git', 'credentials'), `https://${CRED_USER}:${CRED_PASSWORD}@github.com\n`);
    return { home, env: { ...env, GH_CONFIG_DIR: ghDir, GH_TOKEN: ENV_TOKEN, GITHUB_ENTERPRISE_TOKEN: ENV_TOKEN } };
  }

  it('refuses with exit 7 naming every place at once, and no value', async () => {
    const { home, env } = await homeWithEverything();
    const e = await assertNoLogin({ attended: false, remoteUrl: 'git@github.com:o/r.git', env, home }).catch((x) => x);
    expect(e).toBeInstanceOf(UnsafeEnvironment);
    expect(e.exit).toBe(7);
    expect(e.data.host).toBe('github.com');
    expect(e.data.findings.map((f: { kind: string }) => f.kind)).toEqual([
      'token-variable',
      'token-variable',
      'gh-hosts-file',
      'git-credentials-file',
    ]);
    for (const where of ['GH_TOKEN', 'GITHUB_ENTERPRISE_TOKEN', 'hosts.yml', join('git', 'credentials'), 'keychain']) {
      expect(e.message).toContain(where);
    }
    expectNoSecret(e.message + JSON.stringify(e.data));
  });

  it('is skipped for an attended lane, and does not apply to a remote that is no forge', async () => {
    const { home, env } = await homeWithEverything();
    expect(await assertNoLogin({ attended: true, remoteUrl: 'https://github.com/o/r', env, home })).toEqual({ status: 'attended' });
    const gate = await assertNoLogin({ attended: false, remoteUrl: 'file:///srv/repo.git', env, home });
    expect(gate.status).toBe('not-applicable');
    expect(describeGate(gate)).toMatch(/^the login check does not apply: the remote is a local path/);
  });
});

describe('resolveForgeHost', () => {
  it.each([
    ['https://github.com/o/r.git', { applies: true, host: 'github.com', from: 'remote' }],
    ['https://user:pw@GitHub.com/o/r', { applies: true, host: 'github.com', from: 'remote' }],
    ['git@github.com:o/r.git', { applies: true, host: 'github.com', from: 'remote' }],
    ['ssh://git@ssh.github.com:443/o/r.git', { applies: true, host: 'github.com', from: 'remote' }],
    ['https://ghe.corp.example/o/r', { applies: true, host: 'ghe.corp.example', from: 'remote' }],
    ['https://acme.ghe.com/o/r', { applies: true, host: 'acme.ghe.com', from: 'remote' }],
    [undefined, { applies: true, host: 'github.com', from: 'default' }],
  ])('%s is a forge', (remoteUrl, want) => {
    expect(resolveForgeHost({ remoteUrl, enterpriseHosts: ['ghe.corp.example'] })).toEqual(want);
  });

  it.each(['file:///srv/r.git', '/srv/r.git', './r.git', 'git@git.example.org:r.git', 'http://gitlab.com/o/r', 'C:\\repos\\r'])(
    '%s is no forge',
    (remoteUrl) => expect(resolveForgeHost({ remoteUrl, enterpriseHosts: ['ghe.corp.example'] }).applies).toBe(false),
  );
});

describe('abcd check-login', () => {
  async function runCli(remoteUrl: string, env: Record<string, string>, args: Record<string, unknown> = {}) {
    const repo = await tempDir('check-login-repo');
    await git(repo, ['init', '-q'], env);
    for (const [k, v] of QUIET_CONFIG) await git(repo, ['config', k, v], env);
    await git(repo, ['remote', 'add', 'origin', remoteUrl], env);
    let stdout = '';
    let stderr = '';
    const out = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), isTTY: false };
    const deps = { cwd: repo, env, config: envConfig(env), out, remote: 'origin' } as unknown as Deps;
    const g: GlobalArgs = { json: true, debug: false, remote: 'origin' };
    let exit = 0;
    try {
      reportResult(await checkLoginCommand.run({ ...g, ...args }, deps, { commands: [] }), { json: true, out });
    } catch (e) {
      exit = reportFailure(e, { json: true, debug: false, out });
    }
    return { exit, json: JSON.parse(stdout), stdout, stderr };
  }

  it('exits 7 with every finding as {place, kind, path|variable} in JSON, and no value', async () => {
    const { home, env } = await freshHome();
    await writeFile(join(home, '.git-credentials'), `https://${CRED_USER}:${CRED_PASSWORD}@github.com\n`);
    const r = await runCli(`https://${CRED_USER}:${CRED_PASSWORD}@github.com/o/r.git`, { ...env, GITHUB_TOKEN: ENV_TOKEN });
    expect(r.exit).toBe(7);
    expect(r.json.refusal.code).toBe('unsafe-environment');
    expect(r.json.refusal.data.findings).toEqual([
      { place: 'environment variable GITHUB_TOKEN', kind: 'token-variable', variable: 'GITHUB_TOKEN' },
      {
        place: `git's credential store ${join(home, '.git-credentials')}`,
        kind: 'git-credentials-file',
        path: join(home, '.git-credentials'),
      },
    ]);
    expectNoSecret(r.stdout + r.stderr);
  });

  it('exits 0 on a clean HOME, and says the check does not apply to a plain git server', async () => {
    const { env } = await freshHome();
    const clean = await runCli('https://github.com/o/r.git', env);
    expect(clean).toMatchObject({ exit: 0, json: { ok: true, applies: true, host: 'github.com', findings: [] } });
    const plain = await runCli(`https://${CRED_USER}:${CRED_PASSWORD}@git.example.org/r.git`, { ...env, GH_TOKEN: ENV_TOKEN });
    expect(plain.exit).toBe(0);
    expect(plain.json).toMatchObject({ ok: true, applies: false, remote: 'https://git.example.org/r.git' });
    expect(plain.json.reason).toContain('git.example.org is no GitHub forge');
    expectNoSecret(plain.stdout);
  });
});
