// bin/abcd keeps Node's compiled code in the user's own cache folder, never the shared temp
// folder another user could write, and a folder it cannot use costs nothing but the cache.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, isolatedEnv, tempDir } from '../harness/git-env.js';
import { ABCD_BIN } from '../harness/session.js';

afterAll(cleanupTemp);

async function abcdVersion(env: Record<string, string>, cwd: string) {
  // Without the suite's shared cache (NODE_COMPILE_CACHE from isolatedEnv): the launcher picks the folder itself.
  const { NODE_COMPILE_CACHE: _shared, ...own } = env;
  const r = await execa(process.execPath, [ABCD_BIN, '--version'], { cwd, env: own, extendEnv: false, reject: false });
  return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

describe('the compile cache', () => {
  it("lives under the user's cache folder (XDG_CACHE_HOME, else ~/.cache), not the temp folder", async () => {
    const home = await tempDir('cc-home');
    const tmp = await tempDir('cc-tmp');
    const r = await abcdVersion(isolatedEnv(home, { TMPDIR: tmp }), home);
    expect(r.code, r.stderr).toBe(0);
    expect((await readdir(join(home, '.cache/abcd/compile-cache'))).length).toBeGreaterThan(0);
    expect(await readdir(tmp)).toEqual([]);

    const xdg = await tempDir('cc-xdg');
    expect((await abcdVersion(isolatedEnv(home, { TMPDIR: tmp, XDG_CACHE_HOME: xdg }), home)).code).toBe(0);
    expect(await readdir(join(xdg, 'abcd/compile-cache'))).not.toEqual([]);
  });

  it('runs without it where the folder cannot be made, or when NODE_DISABLE_COMPILE_CACHE is set', async () => {
    const home = await tempDir('cc-blocked');
    await writeFile(join(home, '.cache'), 'a file where the folder would go\n');
    const r = await abcdVersion(isolatedEnv(home), home);
    expect([r.code, r.stdout.trim(), r.stderr]).toEqual([0, expect.stringMatching(/^abcd \d/), '']);

    const off = await tempDir('cc-off');
    await mkdir(join(off, 'work'));
    expect((await abcdVersion(isolatedEnv(off, { NODE_DISABLE_COMPILE_CACHE: '1' }), off)).code).toBe(0);
    expect(await readdir(off)).toEqual(['work']);
  });
});
