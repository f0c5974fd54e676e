// Folders named after the process that made them: a dead owner's are removed, a live owner's and
// any other name stay, and a removal that fails leaves its folder for the next sweep instead of
// ending the sweep.
import { chmod, mkdir, readdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pruneDeadOwners, removeTree, SELF_NAME } from '../../src/machine/owned-folders.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

// Above any pid the kernel hands out: an owner that is surely gone.
const DEAD = `${4_194_304 + 7}-1`;

describe('pruning the folders of dead processes', () => {
  it("removes a dead owner's folders, keeps the rest, and keeps one whose removal fails for the next sweep", async () => {
    const root = await tempDir('owned');
    for (const name of [`${DEAD}-empty`, `${DEAD}-full`, `${SELF_NAME}-mine`, 'other']) await mkdir(join(root, name));
    await writeFile(join(root, `${DEAD}-full`, 'left'), 'x');
    // rmdir refuses a folder that is not empty: a real failed removal.
    const removed = await pruneDeadOwners(root, '', (path) => rmdir(path));
    expect(removed).toEqual([`${DEAD}-empty`]);
    expect((await readdir(root)).sort()).toEqual([`${DEAD}-full`, `${SELF_NAME}-mine`, 'other'].sort());
  });

  it('finds nothing to prune in a folder that is not there', async () => {
    const root = join(await tempDir('owned'), 'absent');
    expect(await pruneDeadOwners(root, '', () => Promise.reject(new Error('never called')))).toEqual([]);
  });

  it('removes a tree whose folders were left without write permission', async () => {
    const root = await tempDir('owned');
    const tree = join(root, `${DEAD}-tree`);
    await mkdir(join(tree, 'a', 'b'), { recursive: true });
    await writeFile(join(tree, 'a', 'b', 'f'), 'x');
    await chmod(join(tree, 'a', 'b'), 0o500);
    await chmod(join(tree, 'a'), 0o500);
    await removeTree(tree);
    expect(await readdir(root)).toEqual([]);
  });
});
