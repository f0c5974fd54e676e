// What the sandbox hides: a folder or file to hide that is not there is left out, one that is
// there is hidden, and one that cannot be looked at for another reason (a loop of links) stops
// the sandbox from starting rather than being left visible under the read-only root.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bwrapArgs } from '../../src/machine/sandbox/bwrap.js';
import { secretPlaces } from '../../src/machine/sandbox/places.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

/** A folder, a file, a path that is not there and a loop of links, all in a fresh folder. */
async function places(): Promise<{ dir: string; file: string; missing: string; loop: string; link: string }> {
  const root = await tempDir('hide');
  const dir = join(root, 'config');
  await mkdir(dir);
  const file = join(root, 'key');
  await writeFile(file, 'sk-x');
  const loop = join(root, 'loop');
  await symlink(join(root, 'loop-b'), loop);
  await symlink(loop, join(root, 'loop-b'));
  const link = join(root, 'config-link');
  await symlink(dir, link);
  return { dir, file, missing: join(root, 'absent', 'inner'), loop, link };
}

describe('the folders and files a sandbox hides', () => {
  it('hides a folder behind an empty one and leaves out what is not there', async () => {
    const p = await places();
    const args = bwrapArgs({ hide: [p.dir, p.file, p.missing], binds: [], chdir: '/' }).join(' ');
    expect(args).toContain(`--tmpfs ${p.dir}`);
    expect(args).not.toContain(p.missing);
  });

  it('refuses to build a sandbox around a place it cannot look at, instead of leaving it out', async () => {
    const p = await places();
    expect(() => bwrapArgs({ hide: [p.dir, p.loop], binds: [], chdir: '/' })).toThrow(expect.objectContaining({ code: 'ELOOP' }));
  });

  it("resolves a runtime's config folder through its link, leaves out one that is not there, and throws on a loop", async () => {
    const p = await places();
    const o = { home: '/home/nobody', configDir: '/c', machineDir: '/m', tmpDir: '/tmp' };
    const hide = secretPlaces({}, { ...o, toolHomes: [p.link, p.missing] });
    expect(hide).toContain(p.dir);
    expect(hide).not.toContain(p.missing);
    expect(() => secretPlaces({}, { ...o, toolHomes: [p.loop] })).toThrow(expect.objectContaining({ code: 'ELOOP' }));
  });
});
