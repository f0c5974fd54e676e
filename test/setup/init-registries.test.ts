// `abcd init` suggests what a sandboxed land check must reach to install dependencies: the
// registries the project's lock files name go into a new config's land.network.allow, and a
// config that is kept and lacks them is told what to add.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseRepoConfig } from '../../src/repo/config.js';
import { initRepository } from '../../src/setup/init.js';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

async function repo(files: Record<string, string>): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await tempDir('init-registries');
  const env = isolatedEnv(dir);
  await git(dir, ['init', '-q'], env);
  for (const [f, text] of Object.entries(files)) {
    await mkdir(join(dir, f, '..'), { recursive: true });
    await writeFile(join(dir, f), text);
  }
  return { dir, env };
}

const NPM_LOCK = JSON.stringify({
  lockfileVersion: 3,
  packages: {
    'node_modules/a': { resolved: 'https://registry.npmjs.org/a/-/a-1.0.0.tgz' },
    'node_modules/b': { resolved: 'https://npm.internal.example:8443/b/-/b-2.0.0.tgz' },
    'node_modules/c': { resolved: 'http://localhost:4873/c/-/c-1.0.0.tgz' },
  },
});

describe('abcd init and the lock files', () => {
  it("a new config's land.network.allow names the registries the lock files do, a local one left out", async () => {
    const { dir, env } = await repo({ 'package-lock.json': NPM_LOCK, 'Cargo.lock': '[[package]]\nname = "x"\n' });
    const r = await initRepository({ cwd: dir, env, force: false });
    const config = parseRepoConfig(await readFile(join(dir, '.abcd/config.json'), 'utf8'), 'x');
    const allow = ['registry.npmjs.org:443', 'npm.internal.example:8443', 'index.crates.io:443', 'static.crates.io:443'];
    expect(config.land).toEqual({ checks: '', network: { allow } });
    expect(r.registries).toMatchObject({ files: ['package-lock.json', 'Cargo.lock'], allow });
    expect(r.registries.advice).toMatch(/land\.network\.allow lists the registries package-lock\.json, Cargo\.lock name/);
  });

  it('a kept config without them is told what to add; without lock files nothing changes', async () => {
    const { dir, env } = await repo({
      'poetry.lock': '',
      '.abcd/config.json': '{"land":{"checks":"pytest","network":{"allow":["pypi.org:443"]}}}',
    });
    const r = await initRepository({ cwd: dir, env, force: false });
    expect(r.kept).toEqual(['.abcd/config.json']);
    expect(r.registries.advice).toContain('"allow":["pypi.org:443","files.pythonhosted.org:443"]');
    const bare = await repo({});
    const plain = await initRepository({ cwd: bare.dir, env: bare.env, force: false });
    expect(plain.registries).toEqual({ files: [], allow: [] });
    expect(parseRepoConfig(await readFile(join(bare.dir, '.abcd/config.json'), 'utf8'), 'x')).toEqual({ land: { checks: '' } });
  });
});
