// Ancestry answered from a short walk of parents says what `git merge-base --is-ancestor` says,
// on real histories (linear, branched, merged, equal, longer than the walk), and leaves to git
// what a walk of the objects cannot answer as git would: a shallow clone, a missing commit, a
// tree. A git wrapper on PATH counts the processes.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git } from '../harness/git-env.js';
import { countedClone } from '../harness/counted-git.js';

async function fixture() {
  const c = await countedClone('ancestry');
  const g = c.counted();
  const commit = async (parents: string[], msg: string) =>
    git(c.dir, ['commit-tree', `${c.tip}^{tree}`, ...parents.flatMap((p) => ['-p', p]), '-m', msg], c.env);
  /** What git answers, run outside the counted wrapper. */
  const gitSays = async (a: string, d: string) => {
    const r = await execa('git', ['-C', c.dir, 'merge-base', '--is-ancestor', a, d], { env: c.env, extendEnv: false, reject: false });
    return r.exitCode === 0 ? true : r.exitCode === 1 ? false : undefined;
  };
  const mergeBases = async () => (await c.ran()).filter((cmd) => cmd === 'merge-base').length;
  return { ...c, g, commit, gitSays, mergeBases };
}

describe('ancestry by a walk of parents', () => {
  afterAll(cleanupTemp);

  it('answers as git does on a branched and merged history, without git', async () => {
    const f = await fixture();
    const a1 = await f.commit([f.tip], 'a1');
    const a2 = await f.commit([a1], 'a2');
    const b1 = await f.commit([f.tip], 'b1');
    const m = await f.commit([a2, b1], 'merge');
    const after = await f.commit([m], 'after');
    const all = [f.tip, a1, a2, b1, m, after];
    for (const x of all) {
      for (const y of all) {
        expect([x, y, await f.g.refs.isAncestor(x, y)]).toEqual([x, y, await f.gitSays(x, y)]);
      }
    }
    // Every one of those 36 was answered by the walk.
    expect(await f.mergeBases()).toBe(0);
  });

  it('leaves to git a history longer than its walk, and still answers as git does', async () => {
    const f = await fixture();
    let tip = f.tip;
    for (let i = 0; i < 40; i++) tip = await f.commit([tip], `c${i}`);
    const side = await f.commit([f.tip], 'side');
    expect(await f.g.refs.isAncestor(f.tip, tip)).toBe(true);
    expect(await f.g.refs.isAncestor(side, tip)).toBe(false);
    expect(await f.mergeBases()).toBe(2);
    // A work branch one commit past a long main: the walk meets main at once.
    const work = await f.commit([tip], 'work');
    expect(await f.g.refs.isAncestor(work, tip)).toBe(false);
    expect(await f.mergeBases()).toBe(0);
  });

  it('leaves to git what is not two commits in a full clone: a tree, a missing id, a shallow clone', async () => {
    const f = await fixture();
    const a1 = await f.commit([f.tip], 'a1');
    const tree = await git(f.dir, ['rev-parse', `${f.tip}^{tree}`], f.env);
    expect(await f.g.refs.isAncestor(tree, a1)).toBe(await f.gitSays(tree, a1));
    const missing = 'f'.repeat(40);
    expect(await f.g.refs.isAncestor(missing, a1)).toBeUndefined();
    expect(await f.mergeBases()).toBe(2);
    await writeFile(join(f.gitDir, 'shallow'), `${f.tip}\n`);
    // git now sees the root as parentless: the walk must not answer for it.
    expect(await f.g.refs.isAncestor(f.tip, a1)).toBe(await f.gitSays(f.tip, a1));
    expect(await f.mergeBases()).toBe(1);
  });
});
