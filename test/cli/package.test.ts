// The package people install: `npm pack` builds it (prepack), ships only the launcher and the
// bundle, declares no runtime dependency, installs with no network, and the installed `abcd`
// runs a reserve against a bare remote. The pack runs in a copy of the project, so rebuilding
// never touches the dist/ that other test files are running.
import { cp, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv, QUIET_CONFIG, tempDir } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';

afterAll(cleanupTemp);

const ROOT = resolve(import.meta.dirname, '../..');
const PACKAGE = JSON.parse(await (await import('node:fs/promises')).readFile(join(ROOT, 'package.json'), 'utf8'));
// tsc and the bundler on a loaded 2-core machine; generous, as it is not what is measured.
const PACK_TIMEOUT_MS = 240_000;

/** A copy of what a clean clone holds, with the shared node_modules linked in. */
async function projectCopy(): Promise<string> {
  const dir = join(await tempDir('pack-src'), 'abcd');
  await mkdir(dir);
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'README.md', 'bin', 'src', 'scripts']) {
    await cp(join(ROOT, f), join(dir, f), { recursive: true });
  }
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** npm with no network at all: offline, its own empty cache, no audit or update checks. */
function npmEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    npm_config_cache: join(home, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
}

describe('the npm package', () => {
  it(
    'packs (building first), ships only the bundle, installs offline and runs --help and a reserve',
    async () => {
      const src = await projectCopy();
      const work = await tempDir('pack');
      const env = npmEnv(work);
      const packed = await execa('npm', ['pack', '--json', '--pack-destination', work], { cwd: src, env, extendEnv: false, reject: false });
      expect(packed.exitCode, packed.stderr).toBe(0);
      const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
      const files = info!.files.map((f) => f.path).sort();
      expect(files).toContain('bin/abcd');
      expect(files).toContain('dist/bundle/main.js');
      // The build's name: an installed abcd keeps the record tips it checked under it.
      expect(files).toContain('dist/bundle/build-id');
      // Only the bundle: no tsc output, sources, tests or scripts.
      expect(
        files.filter(
          (f) =>
            !/^(bin\/abcd|dist\/bundle\/[^/]+\.js|dist\/bundle\/help-texts\.json|dist\/bundle\/build-id|package\.json|README\.md|LICENSE)$/.test(
              f,
            ),
        ),
      ).toEqual([]);

      const tarball = join(work, info!.filename);
      const tarList = await execa('tar', ['-xzOf', tarball, 'package/package.json']);
      const shipped = JSON.parse(tarList.stdout);
      expect(shipped.name).toBe(PACKAGE.name);
      expect(shipped.name).toMatch(/^@[a-z0-9-]+\/abcd$/);
      expect(shipped.bin).toEqual({ abcd: 'bin/abcd' });
      // Bundled libraries are not installed again for the people who install abcd.
      expect(shipped.dependencies ?? {}).toEqual({});

      const prefix = join(work, 'prefix');
      const installed = await execa('npm', ['install', '--global', '--prefix', prefix, tarball], { env, extendEnv: false, reject: false });
      expect(installed.exitCode, installed.stderr).toBe(0);
      expect(installed.stderr).not.toMatch(/EBADENGINE|ERR/);
      const abcd = join(prefix, 'bin', 'abcd');

      const home = await tempDir('pack-home');
      const runEnv = isolatedEnv(home, { ABCD_SESSION: 'installed', ABCD_MACHINE_DIR: join(home, 'machine') });
      const help = await execa(abcd, ['--help'], { env: runEnv, extendEnv: false, reject: false });
      expect(help.exitCode, help.stderr).toBe(0);
      expect(help.stdout).toContain('reserve');

      const remote = await makeRemote();
      const clone = join(home, 'work');
      await git(home, ['clone', '-q', remote.url, clone], runEnv);
      for (const [k, v] of QUIET_CONFIG) await git(clone, ['config', k, v], runEnv);
      await git(clone, ['config', 'user.email', 'person@example.com'], runEnv);
      const reserve = await execa(abcd, ['reserve', 'fix-login', '--json'], { cwd: clone, env: runEnv, extendEnv: false, reject: false });
      expect(reserve.exitCode, reserve.stdout + reserve.stderr).toBe(0);
      expect(JSON.parse(reserve.stdout)).toMatchObject({ ok: true, item: 'fix-login' });
      expect((await remote.refs()).get('refs/heads/abcd/claims/local/item/fix-login')).toBe(JSON.parse(reserve.stdout).claimTip);
    },
    PACK_TIMEOUT_MS,
  );

  it('bin/abcd without a build says to run npm run build, and exits non-zero', async () => {
    const dir = await tempDir('nobuild');
    await mkdir(join(dir, 'bin'));
    await cp(join(ROOT, 'bin/abcd'), join(dir, 'bin/abcd'));
    await writeFile(join(dir, 'package.json'), '{"type": "module"}\n');
    const r = await execa(process.execPath, [join(dir, 'bin/abcd'), '--help'], { reject: false });
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('run "npm run build"');
    expect(await readdir(dir)).toEqual(expect.arrayContaining(['bin', 'package.json']));
  });
});
