// A landing of an item marks it done in the landed commit itself: the land's integration step
// calls this after the rebase or merge and BEFORE the checks, so the tree tested is exactly
// the tree that lands, and main never shows landed work as still `ready`.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ItemKey } from '../records/item.js';
import type { Git } from '../git/git.js';
import { itemPath } from './item-path.js';

// The integration worktree is abcd's own: still, a commit there must not sign, prompt or run hooks.
const QUIET = ['-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null'];

/**
 * If the item's file exists at the worktree's HEAD with `status: ready`, rewrites that one line
 * to `status: done` (every other byte kept) and commits it. Answers the path it marked, or null
 * when there was nothing to mark (no such file, another source, already done); and, when it
 * committed nothing, HEAD as read with the file (one git process for both).
 */
export async function markItemDoneInWorktree(wt: Git, item: ItemKey): Promise<{ path: string | null; head?: string }> {
  if (item.source !== 'local' || item.kind !== 'item') return { path: null };
  const path = itemPath(item.id);
  const r = await wt.run(['cat-file', '--batch'], { input: `HEAD\nHEAD:${path}\n` });
  const [commit, file] = r.exitCode === 0 ? splitBatch(r.stdout) : [];
  // Not read: nothing to mark here; the caller's own read of HEAD says what went wrong.
  if (commit?.type !== 'commit') return { path: null };
  const head = commit.oid;
  if (!file || file.type !== 'blob') return { path: null, head };
  // YAML is loaded only for an item that has a file to mark.
  const { markDone } = await import('./item-file.js');
  // latin1 maps every byte to one character and back, so bytes outside UTF-8 survive the rewrite.
  const marked = markDone(file.content.toString('latin1'));
  if (marked === null) return { path: null, head };
  await writeFile(join(wt.dir, path), Buffer.from(marked, 'latin1'));
  await wt.must(['add', '--', path]);
  await wt.must([
    ...QUIET,
    'commit',
    '-q',
    '--no-verify',
    '-m',
    `Mark ${item.id} done`,
    '-m',
    `abcd land: ${path} status: done in the landed commit.`,
  ]);
  return { path };
}

/** `git cat-file --batch` output: each object's id, type and content; a missing one has neither. */
function splitBatch(out: Buffer): { oid: string; type: string; content: Buffer }[] {
  const objects = [];
  let pos = 0;
  while (pos < out.length) {
    const nl = out.indexOf(10, pos);
    if (nl < 0) break;
    const [oid = '', type = '', size] = out.subarray(pos, nl).toString().split(' ');
    pos = nl + 1;
    if (size === undefined) {
      objects.push({ oid: '', type: 'missing', content: Buffer.alloc(0) });
      continue;
    }
    objects.push({ oid, type, content: out.subarray(pos, pos + Number(size)) });
    pos += Number(size) + 1;
  }
  return objects;
}
