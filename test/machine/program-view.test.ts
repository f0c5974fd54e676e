// The agent's program as the sandbox must show it: found on PATH as the shell finds it, passing
// over a PATH entry that is not there, a dangling link and a file nobody may run, and its folder
// bound read-only when the sandbox hides it.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { programView } from '../../src/machine/sandbox/program.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

describe("the agent's program on PATH", () => {
  it('passes over what the shell would not run and binds the folder of the program it would', async () => {
    const root = await tempDir('program');
    const [dangling, plain, real] = ['dangling', 'plain', 'real'].map((d) => join(root, d)) as [string, string, string];
    for (const d of [dangling, plain, real]) await mkdir(d);
    await symlink(join(root, 'nowhere'), join(dangling, 'agent'));
    await writeFile(join(plain, 'agent'), '#!/bin/sh\n', { mode: 0o644 });
    await writeFile(join(real, 'agent'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    const path = [join(root, 'absent'), dangling, plain, real].join(':');
    const view = await programView('agent --go', { path, cwd: root, places: { hidden: [root], secret: [], bound: [] } });
    expect(view).toEqual({ binds: [{ path: real }], symlinks: [] });
  });

  it('passes over a link to a folder of the same name, as the shell does, instead of reading the folder as a script', async () => {
    const root = await tempDir('program');
    const [linked, folder, real] = ['linked', 'folder', 'real'].map((d) => join(root, d)) as [string, string, string];
    for (const d of [linked, folder, real]) await mkdir(d);
    await symlink(folder, join(linked, 'agent'));
    await writeFile(join(real, 'agent'), '#!/bin/sh\n', { mode: 0o755 });
    const view = await programView('agent', { path: `${linked}:${real}`, cwd: root, places: { hidden: [root], secret: [], bound: [] } });
    expect(view).toEqual({ binds: [{ path: real }], symlinks: [] });
  });

  it('names a program found nowhere on PATH', async () => {
    const root = await tempDir('program');
    const path = [join(root, 'absent'), root].join(':');
    const view = await programView('agent', { path, cwd: root, places: { hidden: [root], secret: [], bound: [] } });
    expect(view.hidden).toEqual({ word: 'agent', path: 'agent', why: 'not-found' });
  });
});
