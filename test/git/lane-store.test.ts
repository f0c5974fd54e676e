// The lane store's fill reads the store's main as a file: the same head again starts no git
// process, and a main packed away (no file) is unknown, so a fetch fills the store again.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fillLaneStore, laneStoreDir } from '../../src/repo/lane-objects.js';
import { cleanupTemp, git, localClone } from '../harness/git-env.js';

afterAll(cleanupTemp);

describe('the lane store', () => {
  it('fills once, starts no git for the same head, and fetches again when its main is packed away', async () => {
    const { root, env, tip: runHead, gitDir: commonDir } = await localClone('lane-store', { name: 'a.txt', text: 'a\n' });
    const store = laneStoreDir(commonDir);
    const log = join(root, 'git.log');
    await writeFile(join(root, 'git'), `#!/bin/sh\necho "$*" >> ${log}\nexec /usr/bin/git "$@"\n`, { mode: 0o755 });
    const logged = { ...env, PATH: `${root}:${env.PATH}` };
    const calls = async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean);

    expect(await fillLaneStore({ env: logged, commonDir, runHead })).toBe(join(store, 'objects'));
    expect((await calls()).some((c) => c.includes('fetch'))).toBe(true);
    const after = (await calls()).length;
    await fillLaneStore({ env: logged, commonDir, runHead });
    expect((await calls()).length).toBe(after);

    await git(root, ['--git-dir', store, 'pack-refs', '--all'], env);
    await fillLaneStore({ env: logged, commonDir, runHead });
    expect((await calls()).slice(after).some((c) => c.includes('fetch'))).toBe(true);
    expect(await git(root, ['--git-dir', store, 'rev-parse', 'refs/heads/main'], env)).toBe(runHead);
  });
});
