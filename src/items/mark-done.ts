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
 *
 * `trailers` (what a lane's run absorbed) go at the end of the marking commit's message; with
 * nothing to mark they get a commit of their own, empty, so the landing still carries them.
 */
export async function markItemDoneInWorktree(
  wt: Git,
  item: ItemKey,
  trailers: readonly string[] = [],
): Promise<{ path: string | null; head?: string }> {
  const local = item.source === 'local' && item.kind === 'item';
  const path = local ? itemPath(item.id) : null;
  const r = path ? await wt.run(['cat-file', '--batch'], { input: `HEAD\nHEAD:${path}\n` }) : undefined;
  const [commit, file] = r?.exitCode === 0 ? splitBatch(r.stdout) : [];
  // Not read: nothing to mark here; the caller's own read of HEAD says what went wrong.
  if (path && commit?.type !== 'commit') return { path: null };
  const head = commit?.oid;
  const marked = path && file?.type === 'blob' ? await markedText(file.content) : null;
  if (marked === null || !path) {
    if (!trailers.length) return head ? { path: null, head } : { path: null };
    await commitQuietly(wt, ['--allow-empty', '-m', `Record what ${item.id} absorbed`, '-m', trailers.join('\n')]);
    return { path: null };
  }
  await writeFile(join(wt.dir, path), Buffer.from(marked, 'latin1'));
  await wt.must(['add', '--', path]);
  const body = `abcd land: ${path} status: done in the landed commit.`;
  await commitQuietly(wt, ['-m', `Mark ${item.id} done`, '-m', body, ...(trailers.length ? ['-m', trailers.join('\n')] : [])]);
  return { path };
}

/** The file's text with `status: done`, or null when it is not `ready`. */
async function markedText(content: Buffer): Promise<string | null> {
  // YAML is loaded only for an item that has a file to mark.
  const { markDone } = await import('./item-file.js');
  // latin1 maps every byte to one character and back, so bytes outside UTF-8 survive the rewrite.
  return markDone(content.toString('latin1'));
}

async function commitQuietly(wt: Git, args: string[]): Promise<void> {
  await wt.must([...QUIET, 'commit', '-q', '--no-verify', ...args]);
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
