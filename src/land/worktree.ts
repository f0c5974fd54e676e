// Throwaway worktrees for rebasing and testing a landing, never signing or running hooks.
import { randomBytes } from '../core/builtins.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pruneDeadOwners, removeTree, SELF_NAME } from '../machine/owned-folders.js';
import { Conflict } from '../core/refusals.js';
import { Git } from '../git/git.js';
import type { Repo } from '../repo/repo.js';
import type { Env } from '../core/deps.js';
import { markItemDoneInWorktree } from '../items/mark-done.js';
import { parseItem } from '../records/item.js';
import { consumptionTrailers, type Consumption } from '../records/receipt.js';
import type { IntegrationStrategy } from '../records/queue.js';
import { squashOnto } from './strategies/squash.js';

/**
 * Runs `fn` in a fresh detached worktree at `commit`, removed on every exit path. The
 * clone's own work tree and branches are never touched. The worktree lives under
 * <git-common-dir>/abcd/land/, named after the process that made it (machine/owned-folders.ts),
 * so a land killed with -9 leaves something the next land or lane can recognise as dead and
 * remove (ADR 0018).
 */
export async function withWorktree<T>(repo: Repo, commit: string, fn: (wt: Git) => Promise<T>): Promise<T> {
  const root = landRoot(repo);
  const dir = join(root, `${SELF_NAME}-${randomBytes(4).toString('hex')}`);
  await oneAtATime(async () => {
    await pruneDeadWorktrees(repo);
    await mkdir(root, { recursive: true });
    await repo.git.worktrees.add(dir, commit);
  });
  try {
    return await fn(repo.git.worktree(dir));
  } finally {
    await oneAtATime(() => removeWorktree(repo, dir));
  }
}

// git's worktree add and remove read and write .git/worktrees/ without a lock: one running while
// another half-made or half-removed worktree is there fails (`failed to read .../commondir`).
// A batch's head tests two stacks at once, so this process makes and removes them one at a time.
let worktreeChain: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const p = worktreeChain.then(fn, fn);
  worktreeChain = p.catch(() => undefined); // the chain only orders; the caller gets p's error
  return p;
}

/**
 * Removes the worktrees dead lands left behind: those under abcd's own folder whose owning
 * process no longer runs. A live land's worktree, in this process or another, is left alone.
 * Returns the folders it removed.
 */
export function pruneDeadWorktrees(repo: Repo): Promise<string[]> {
  return pruneDeadOwners(landRoot(repo), '', (dir) => removeWorktree(repo, dir));
}

function landRoot(repo: Repo): string {
  return join(repo.commonDir, 'abcd', 'land');
}

async function removeWorktree(repo: Repo, dir: string): Promise<void> {
  const removed = await repo.git.worktrees.remove(dir);
  await removeTree(dir);
  // Only when git could not remove it itself: forget the worktree whose folder is gone.
  if (!removed) await repo.git.worktrees.prune();
}

/** Where the first integrate() in a fresh worktree needs no checkout: the head to rebase (or squash), the base to merge into. */
export function integrationStart(o: { head: string; base: string; strategy: IntegrationStrategy }): string {
  return o.strategy === 'merge' ? o.base : o.head;
}

export interface Integration {
  item: string;
  head: string;
  /** The commit the work comes onto: main's tip, or the entries ahead integrated onto it. */
  base: string;
  strategy: IntegrationStrategy;
  /** Mark the item's file done in a commit on top, or inside the squash commit (not with --keep). */
  markDone: boolean;
  /** The entry's enqueue time: the date of every commit the integration makes. */
  at: number;
  /** What a lane's run absorbed, as trailers of the marking (or squash) commit (the queue entry carries it too). */
  consumed?: Consumption;
}

/**
 * Brings `head` onto `base` in the worktree and returns the commit that would land. A conflict
 * aborts and names the files. Then, unless `markDone` is false, the item's file is marked
 * `status: done` in a commit on top, before any check runs: the tree tested is the tree that lands.
 * `squash` rebases the same way, then collapses the work and the mark into one commit (squash.ts).
 *
 * Deterministic: every commit it makes has the work head's committer as committer (and author,
 * for the merge and the marking; the work head's author for the squash) and the entry's enqueue
 * time as date, so any clone integrating
 * the same entries onto the same tip makes the same commits. That is what lets an entry test on
 * top of the entries ahead of it before they land (speculation, ADR 0041); a clone whose git
 * integrates differently only makes the entries behind it test again, never lands anything untested.
 */
export async function integrate(wt: Git, o: Integration & { env: Env; current: string }): Promise<string> {
  const start = integrationStart(o);
  if (o.current !== start) await wt.work.checkout(start);
  const { committerName: name, committerEmail: email, authorName: author, authorEmail } = await wt.history.idents(o.head);
  const date = `@${Math.floor(o.at / 1000)} +0000`;
  const committer = { GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email, GIT_COMMITTER_DATE: date };
  const maker = { ...committer, GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_AUTHOR_DATE: date };
  // A rebase keeps each commit's own author; only the merge and the marking are new commits.
  const step = o.strategy === 'merge' ? 'merge' : 'rebase';
  const r =
    step === 'rebase' ? await wt.work.rebase(o.base, { env: committer }) : await wt.work.merge(o.head, `land ${o.item}`, { env: maker });
  if (!r.ok) {
    const files = r.conflict;
    throw new Conflict(
      `${o.item} does not ${step} cleanly onto the main tip ${o.base.slice(0, 12)}` +
        (files.length ? `: conflicts in ${files.join(', ')}` : `: ${r.failure.stderr.trim().split('\n').at(-1) ?? ''}`) +
        '. Your work branch is unchanged: bring it up to date with main, push, and land again.',
      { item: o.item, files, mainTip: o.base, head: o.head, strategy: o.strategy },
    );
  }
  if (o.strategy === 'squash') {
    // The one commit is the work head's author's; committer and date as for every commit here.
    const env = { ...committer, GIT_AUTHOR_NAME: author, GIT_AUTHOR_EMAIL: authorEmail, GIT_AUTHOR_DATE: date };
    return squashOnto(wt, { item: o.item, base: o.base, markDone: o.markDone, env, ...(o.consumed ? { consumed: o.consumed } : {}) });
  }
  const trailers = o.consumed ? consumptionTrailers(o.consumed) : [];
  const marked = o.markDone
    ? await markItemDoneInWorktree(wt.worktree(wt.dir, { ...o.env, ...maker }), parseItem(o.item), trailers)
    : undefined;
  return marked?.head ?? wt.refs.head();
}
