import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isProcessAlive, readStartTime } from '../../machine/gate-process.js';
import { Conflict } from '../../refusals.js';
import { Git } from '../../remote/git.js';
import type { Repo } from '../repo.js';
import { markItemDoneInWorktree } from '../../items/mark-done.js';
import { parseItem } from '../../records/item.js';

// Rebases and merges in a throwaway worktree must not sign, prompt or run hooks.
const QUIET = ['-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null'];

// This process as a worktree's name records it: a pid alone is reused, pid plus the kernel's
// start time is not (as the load gate names its entries, src/machine/gate-process.ts).
const SELF = { pid: process.pid, start: readStartTime(process.pid) };

/**
 * Runs `fn` in a fresh detached worktree at `commit`, removed on every exit path. The
 * clone's own work tree and branches are never touched. The worktree lives under
 * <git-common-dir>/abcd/land/, named after the process that made it, so a land killed with
 * -9 leaves something the next land can recognise as dead and remove (ADR 0018).
 */
export async function withWorktree<T>(repo: Repo, commit: string, fn: (wt: Git) => Promise<T>): Promise<T> {
  await pruneDeadWorktrees(repo);
  const root = landRoot(repo);
  await mkdir(root, { recursive: true });
  const dir = join(root, `${SELF.pid}-${SELF.start ?? 'x'}-${randomBytes(4).toString('hex')}`);
  await repo.git.must(['worktree', 'add', '--detach', '-q', dir, commit]);
  try {
    return await fn(new Git(dir, repo.deps.env));
  } finally {
    await removeWorktree(repo, dir);
  }
}

/**
 * Removes the worktrees dead lands left behind: those under abcd's own folder whose owning
 * process no longer runs. A live land's worktree, in this process or another, is left alone.
 * Returns the folders it removed.
 */
export async function pruneDeadWorktrees(repo: Repo): Promise<string[]> {
  const root = landRoot(repo);
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = /^(\d+)-(\d+|x)-[0-9a-f]+$/.exec(name);
    if (!m) continue;
    if (isProcessAlive({ pid: Number(m[1]), start: m[2] === 'x' ? null : m[2]! })) continue;
    await removeWorktree(repo, join(root, name));
    removed.push(name);
  }
  return removed;
}

function landRoot(repo: Repo): string {
  return join(repo.commonDir, 'abcd', 'land');
}

async function removeWorktree(repo: Repo, dir: string): Promise<void> {
  const removed = await repo.git.run(['worktree', 'remove', '--force', dir]);
  await rm(dir, { recursive: true, force: true });
  // Only when git could not remove it itself: forget the worktree whose folder is gone.
  if (removed.exitCode !== 0) await repo.git.run(['worktree', 'prune']);
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
