// A landing of an item marks it done in the landed commit itself: the land's integration step
// calls this after the rebase or merge and BEFORE the checks, so the tree tested is exactly
// the tree that lands, and main never shows landed work as still `ready`.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ItemKey } from '../records/item.js';
import type { Git } from '../remote/git.js';
import { itemPath, markDone } from './item-file.js';

// The integration worktree is abcd's own: still, a commit there must not sign, prompt or run hooks.
const QUIET = ['-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null'];

/**
 * If the item's file exists at the worktree's HEAD with `status: ready`, rewrites that one line
 * to `status: done` (every other byte kept) and commits it. Returns the path it marked, or
 * null when there was nothing to mark (no such file, another source, already done).
 */
export async function markItemDoneInWorktree(wt: Git, item: ItemKey): Promise<string | null> {
  if (item.source !== 'local' || item.kind !== 'item') return null;
  const path = itemPath(item.id);
  const r = await wt.run(['cat-file', 'blob', `HEAD:${path}`]);
  if (r.exitCode !== 0) return null;
  // latin1 maps every byte to one character and back, so bytes outside UTF-8 survive the rewrite.
  const marked = markDone(r.stdout.toString('latin1'));
  if (marked === null) return null;
  await writeFile(join(wt.dir, path), Buffer.from(marked, 'latin1'));
  await wt.must(['add', '--', path]);
  await wt.must([...QUIET, 'commit', '-q', '--no-verify', '-m', `Mark ${item.id} done`, '-m', `abcd land: ${path} status: done in the landed commit.`]);
  return path;
}
