// Where the relay finds socat: the first PATH entry that holds an executable file of that name,
// through its links, passing over an entry that is not there, a file nobody may run and a folder.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findSocat } from '../../src/machine/sandbox/socat-relay.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

describe('finding socat on PATH', () => {
  it('passes over what cannot be run and takes the real file behind a link', async () => {
    const root = await tempDir('socat');
    const [plain, folder, linked, real] = ['plain', 'folder', 'linked', 'real'].map((d) => join(root, d)) as [
      string,
      string,
      string,
      string,
    ];
    for (const d of [plain, folder, linked, real]) await mkdir(d);
    await writeFile(join(plain, 'socat'), '#!/bin/sh\n', { mode: 0o644 });
    await mkdir(join(folder, 'socat'));
    await writeFile(join(real, 'socat-1.8'), '#!/bin/sh\n', { mode: 0o755 });
    await symlink(join(real, 'socat-1.8'), join(linked, 'socat'));
    expect(findSocat([join(root, 'absent'), 'relative', plain, folder, linked].join(':'))).toBe(join(real, 'socat-1.8'));
    expect(findSocat([join(root, 'absent'), plain, folder].join(':'))).toBeUndefined();
  });
});
