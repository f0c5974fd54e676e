// Codex's platform package beside a launcher folder the sandbox shows: found as node finds it,
// and nothing for a folder that is no Codex install (no package.json, one that is no JSON or
// names nothing, no platform package), without a crash.
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codexPlatformBinds } from '../../../src/lanes/runtimes/codex/codex-program.js';
import { cleanupTemp, tempDir } from '../../harness/git-env.js';

const PLATFORM = `@openai/codex-${process.platform}-${process.arch}`;

async function pkg(root: string, name: string, packageJson: string | undefined): Promise<string> {
  const dir = join(root, name);
  await mkdir(join(dir, 'bin'), { recursive: true });
  if (packageJson !== undefined) await writeFile(join(dir, 'package.json'), packageJson);
  return dir;
}

describe("codex's platform package", () => {
  afterAll(cleanupTemp);

  it('is shown beside the launcher that finds it, and nothing is added for a folder that is no Codex install', async () => {
    const root = await realpath(await tempDir('codex-program'));
    const codex = JSON.stringify({ name: '@openai/codex' });
    const installed = await pkg(root, 'installed', codex);
    await mkdir(join(installed, 'node_modules', PLATFORM), { recursive: true });
    await writeFile(join(installed, 'node_modules', PLATFORM, 'package.json'), JSON.stringify({ name: PLATFORM }));
    const others = [
      await pkg(root, 'no-package', undefined),
      await pkg(root, 'not-json', '{ name: '),
      await pkg(root, 'null', 'null'),
      await pkg(root, 'other', JSON.stringify({ name: 'left-pad' })),
      await pkg(root, 'no-platform', codex),
    ];
    const binds = [installed, ...others].map((d) => ({ path: join(d, 'bin') }));
    expect(codexPlatformBinds(binds, [])).toEqual([{ path: join(installed, 'node_modules', PLATFORM) }]);
    // Inside a secret folder it is not shown.
    expect(codexPlatformBinds(binds, [installed])).toEqual([]);
  });
});
