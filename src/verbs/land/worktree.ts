import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Conflict } from '../../refusals.js';
import { Git } from '../../remote/git.js';
import type { Repo } from '../repo.js';
import { markItemDoneInWorktree } from '../../items/mark-done.js';
import { parseItem } from '../../records/item.js';

// Rebases and merges in a throwaway worktree must not sign, prompt or run hooks.
const QUIET = ['-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null'];

/**
 * Runs `fn` in a fresh detached worktree at `commit`, removed on every exit path. The
 * clone's own work tree and branches are never touched.
 */
export async function withWorktree<T>(repo: Repo, commit: string, fn: (wt: Git) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(repo.deps.config.tmpDir, 'abcd-land-'));
  await repo.git.must(['worktree', 'add', '--detach', '-q', dir, commit]);
  try {
    return await fn(new Git(dir, repo.deps.env));
  } finally {
    const removed = await repo.git.run(['worktree', 'remove', '--force', dir]);
    await rm(dir, { recursive: true, force: true });
    // Only when git could not remove it itself: forget the worktree whose folder is gone.
    if (removed.exitCode !== 0) await repo.git.run(['worktree', 'prune']);
  }
}

/** Where integrate() wants the worktree to start: the work head to rebase, main to merge into. */
export function integrationStart(o: { head: string; mainTip: string; strategy: 'rebase' | 'merge' }): string {
  return o.strategy === 'rebase' ? o.head : o.mainTip;
}

/**
 * Brings `head` onto `mainTip` in the worktree (which starts at integrationStart()) and
 * returns the commit that would land. A conflict aborts and names the files. Then, unless
 * `markDone` is false, the item's file is marked `status: done` in a commit on top, before
 * any check runs: the tree tested is the tree that lands.
 */
export async function integrate(
  wt: Git,
  o: { item: string; head: string; mainTip: string; strategy: 'rebase' | 'merge'; markDone?: boolean },
): Promise<string> {
  const r =
    o.strategy === 'rebase'
      ? await wt.run([...QUIET, 'rebase', '-q', o.mainTip])
      : await wt.run([...QUIET, 'merge', '-q', '--no-ff', '--no-edit', '-m', `land ${o.item}`, o.head]);
  if (r.exitCode !== 0) {
    const files = (await wt.run(['diff', '--name-only', '--diff-filter=U'])).stdout.toString().split('\n').filter(Boolean);
    await wt.run([o.strategy, '--abort']);
    throw new Conflict(
      `${o.item} does not ${o.strategy} cleanly onto the main tip ${o.mainTip.slice(0, 12)}` +
        (files.length ? `: conflicts in ${files.join(', ')}` : `: ${r.stderr.trim().split('\n').at(-1) ?? ''}`) +
        '. Your work branch is unchanged: bring it up to date with main, push, and land again.',
      { item: o.item, files, mainTip: o.mainTip, head: o.head, strategy: o.strategy },
    );
  }
  if (o.markDone !== false) await markItemDoneInWorktree(wt, parseItem(o.item));
  return wt.must(['rev-parse', 'HEAD']);
}
