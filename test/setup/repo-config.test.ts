// .abcd/config.json has one strict schema: a typo is a refusal naming the key and the keys
// allowed (exit 2), and a land with such a config enqueues nothing.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_REPO_CONFIG, parseRepoConfig, readRepoConfig, renderRepoConfig } from '../../src/repo/config.js';
import { Git } from '../../src/git/git.js';
import { GitFailed, UsageError } from '../../src/core/refusals.js';
import { initRepository } from '../../src/setup/init.js';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';

afterAll(cleanupTemp);

function refusalOf(text: string): UsageError {
  try {
    parseRepoConfig(text, '.abcd/config.json on main');
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return e as UsageError;
  }
  throw new Error(`${text} was accepted`);
}

describe('the repository config schema', () => {
  it('refuses an unknown key inside land, naming it and the keys allowed', () => {
    const r = refusalOf('{"land":{"check":"false"}}');
    expect(r.exit).toBe(2);
    expect(r.data).toMatchObject({
      key: 'land.check',
      reason: 'unknown-key',
      allowed: ['checks', 'timeout', 'speculate', 'batch', 'batchWait', 'sandbox', 'env', 'network', 'retries', 'priorityAge', 'strategy'],
    });
    expect(r.message).toContain('"land.check"');
    expect(r.message).toContain('"checks", "timeout"');
  });

  it('reads land.strategy; a strategy it does not know is refused naming the key', () => {
    expect(parseRepoConfig('{"land":{"strategy":"squash"}}', 'config').land?.strategy).toBe('squash');
    const r = refusalOf('{"land":{"strategy":"octopus"}}');
    expect(r.exit).toBe(2);
    expect(r.message).toContain('land.strategy');
  });

  it('reads the sandbox keys; a lanes.bind path neither absolute nor under ~/, or climbing with .., is refused', () => {
    const config = { land: { sandbox: 'none', env: ['CI'], network: false }, lanes: { bind: ['/opt/agent', '~/.local/share/agent'] } };
    expect(parseRepoConfig(JSON.stringify(config), 'x')).toEqual(config);
    for (const bad of ['relative/agent', '~', '~/../etc', '/opt/../home']) {
      expect(refusalOf(JSON.stringify({ lanes: { bind: [bad] } })).data).toMatchObject({ key: 'lanes.bind.0' });
    }
    expect(refusalOf('{"land":{"sandbox":"docker"}}').data).toMatchObject({ key: 'land.sandbox' });
  });

  it('refuses an unknown section, naming the sections allowed', () => {
    const r = refusalOf('{"lnd":{"checks":"npm test"}}');
    expect(r.data).toMatchObject({ key: 'lnd', reason: 'unknown-key', allowed: ['land', 'lanes', 'items'] });
    expect(refusalOf('{"lanes":{"agnet":"x"}}').data).toMatchObject({
      key: 'lanes.agnet',
      allowed: expect.arrayContaining(['agent', 'sandbox', 'env']),
    });
    expect(refusalOf('{"lanes":{"steer":{"mx":2}}}').data).toMatchObject({ key: 'lanes.steer.mx', allowed: ['max', 'poll'] });
  });

  it('refuses wrong types and values, naming the key', () => {
    expect(refusalOf('{"land":{"checks":3}}').data).toMatchObject({ key: 'land.checks', reason: 'wrong-type' });
    expect(refusalOf('{"land":{"timeout":"soon"}}').data).toMatchObject({ key: 'land.timeout', reason: 'wrong-type' });
    expect(refusalOf('{"lanes":{"sandbox":"docker"}}').data).toMatchObject({ key: 'lanes.sandbox' });
    expect(refusalOf('{"lanes":{"env":["GH TOKEN"]}}').data).toMatchObject({ key: 'lanes.env.0' });
    expect(refusalOf('[]').data).toMatchObject({ reason: 'wrong-type' });
    expect(refusalOf('{"land":').data).toMatchObject({ reason: 'not-json' });
  });

  it('accepts every section it documents', () => {
    const full = {
      land: { checks: ['npm ci', 'npm test'], timeout: '20m' },
      lanes: {
        agent: 'claude -p "$(cat $ABCD_ITEM_FILE)"',
        sandbox: 'bwrap',
        env: ['ANTHROPIC_API_KEY'],
        requesters: ['person@example.com', 'ann@example.com/laptop/s1'],
        steer: { max: 2 },
        agentTimeout: '30m',
        ttl: '10m',
        idle: '5m',
        maxCycles: 3,
        lanes: 2,
        lifecycle: 'poll',
      },
      items: { github: { repo: 'octo/widgets', labels: ['abcd:ready'], exclude: ['wontfix'], priority: ['p0', 'p1'] } },
    };
    expect(parseRepoConfig(JSON.stringify(full), 'x')).toEqual(full);
    expect(refusalOf('{"items":{"github":{"repo":"widgets"}}}').data).toMatchObject({ key: 'items.github.repo', reason: 'wrong-type' });
    expect(refusalOf('{"items":{"github":{"labels":["a,b"]}}}').data).toMatchObject({ key: 'items.github.labels.0' });
    expect(refusalOf('{"items":{"gitlab":{}}}').data).toMatchObject({ key: 'items.gitlab', allowed: ['github'] });
  });

  it('abcd init writes a config the same schema reads back', async () => {
    const dir = await tempDir('config-init');
    const env = isolatedEnv(dir);
    await git(dir, ['init', '-q'], env);
    await initRepository({ cwd: dir, env, force: false });
    const text = await readFile(join(dir, '.abcd/config.json'), 'utf8');
    expect(text).toBe(renderRepoConfig(DEFAULT_REPO_CONFIG));
    expect(parseRepoConfig(text, 'x')).toEqual(DEFAULT_REPO_CONFIG);
  });

  it('abcd init keeps a valid config and refuses, writing nothing, when the existing one has a typo', async () => {
    const dir = await tempDir('config-init-typo');
    const env = isolatedEnv(dir);
    await git(dir, ['init', '-q'], env);
    await mkdir(join(dir, '.abcd'));
    await writeFile(join(dir, '.abcd/config.json'), '{"land":{"checks":"npm test"}}');
    expect(await initRepository({ cwd: dir, env, force: false })).toMatchObject({ kept: ['.abcd/config.json'] });
    await writeFile(join(dir, '.abcd/config.json'), '{"land":{"check":"npm test"}}');
    const r = await initRepository({ cwd: dir, env, ci: 'github', force: false }).catch((e) => e);
    expect(r).toBeInstanceOf(UsageError);
    expect(r.data).toMatchObject({ key: 'land.check', allowed: expect.arrayContaining(['checks', 'timeout', 'speculate']) });
    await expect(readFile(join(dir, '.github/workflows/abcd-lanes.yml'))).rejects.toThrow();
  });
});

describe('abcd land with a typo in the config', () => {
  for (const [label, config] of [
    ['land.check', '{"land":{"check":"false"}}'],
    ['lnd', '{"lnd":{"checks":"false"}}'],
  ] as const) {
    it(`refuses ${label} with exit 2 before enqueueing; main, the queue and the claim's history are untouched`, async () => {
      const remote = await makeRemote();
      const s = await makeSession(remote.url, 'typo');
      await mkdir(join(s.dir, '.abcd'));
      await writeFile(join(s.dir, '.abcd/config.json'), config);
      await s.git(['add', '.']);
      await s.git(['commit', '-q', '-m', 'a config with a typo']);
      await s.git(['push', '-q', 'origin', 'main']);
      expect((await s.abcd(['reserve', 'fix-it'])).code).toBe(0);
      await s.git(['checkout', '-q', '-b', 'work/fix-it']);
      await s.commit('fix.txt', 'fixed\n');
      const mainBefore = (await remote.refs()).get('refs/heads/main');

      const r = await s.abcd(['land', 'fix-it', '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.json.refusal).toMatchObject({ code: 'usage', data: { key: label, reason: 'unknown-key' } });
      expect(r.json.refusal.message).toContain(`"${label}"`);
      const refs = await remote.refs();
      expect(refs.get('refs/heads/main')).toBe(mainBefore);
      expect([...refs.keys()].filter((k) => k.startsWith('refs/heads/abcd/queue/'))).toEqual([]);
      const claimLog = await git(remote.dir, ['log', '--format=%s', 'refs/heads/abcd/claims/local/item/fix-it'], s.env);
      expect(claimLog).not.toMatch(/enqueue/);
    }, 120_000);
  }
});

describe('reading the config from main', () => {
  it('a missing file is no config; a config git cannot read is a refusal, never a land without its checks', async () => {
    const dir = await tempDir('config-read');
    const env = isolatedEnv(dir);
    await git(dir, ['init', '-q', '-b', 'main', '.'], env);
    await git(dir, ['-c', 'user.name=a', '-c', 'user.email=a@example.com', 'commit', '-q', '--allow-empty', '-m', 'empty'], env);
    const bare = await git(dir, ['rev-parse', 'HEAD'], env);
    const repo = new Git(dir, env);
    expect(await readRepoConfig(repo, bare)).toEqual({});
    await mkdir(join(dir, '.abcd'));
    await writeFile(join(dir, '.abcd/config.json'), '{"land":{"checks":"npm test"}}');
    await git(dir, ['add', '.'], env);
    await git(dir, ['-c', 'user.name=a', '-c', 'user.email=a@example.com', 'commit', '-q', '-m', 'config'], env);
    const tip = await git(dir, ['rev-parse', 'HEAD'], env);
    expect(await readRepoConfig(repo, tip)).toEqual({ land: { checks: 'npm test' } });
    // The config's object lost (a broken clone): git's failure, not "no checks".
    const blob = await git(dir, ['rev-parse', `${tip}:.abcd/config.json`], env);
    await rm(join(dir, '.git/objects', blob.slice(0, 2), blob.slice(2)));
    await expect(readRepoConfig(repo, tip)).rejects.toBeInstanceOf(GitFailed);
  });
});
