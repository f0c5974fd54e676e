// A landing of an item marks it done in the landed commit itself: the land's integration step
// calls this after the rebase or merge and BEFORE the checks, so the tree tested is exactly
// the tree that lands, and main never shows landed work as still `ready`.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ItemKey } from '../records/item.js';
import type { Git } from '../git/git.js';
import { itemPath } from './item-path.js';
import { isRefusal } from '../core/refusals.js';
import { sanitizeLine } from '../core/sanitize.js';

// A title becomes a commit subject on main: one line, a length a log can show.
const MAX_TITLE_CHARS = 200;

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
  const read = await readItemAtHead(wt, item);
  // Not read: nothing to mark here; the caller's own read of HEAD says what went wrong.
  if (!read) return { path: null };
  const path = read.file ? await stageMarked(wt, read.path!, read.file) : null;
  if (!path) {
    if (!trailers.length) return read.head ? { path: null, head: read.head } : { path: null };
    await wt.work.commit([`Record what ${item.id} absorbed`, trailers.join('\n')], { allowEmpty: true });
    return { path: null };
  }
  const body = `abcd land: ${path} status: done in the landed commit.`;
  await wt.work.commit([`Mark ${item.id} done`, body, ...(trailers.length ? [trailers.join('\n')] : [])]);
  return { path };
}

/**
 * The same marking, staged and not committed: the squash strategy's one commit carries it
 * (land/squash.ts). With `mark` false (a land with --keep) nothing is staged. Answers the path
 * it staged, or null, and the item's title as its file at HEAD says, or null (no file, another
 * source, a file that does not parse: the caller names the item by its key).
 */
export async function stageItemDone(wt: Git, item: ItemKey, o: { mark: boolean }): Promise<{ path: string | null; title: string | null }> {
  const read = await readItemAtHead(wt, item);
  if (!read?.file) return { path: null, title: null };
  const title = await titleOf(read.path!, item, read.file);
  return { path: o.mark ? await stageMarked(wt, read.path!, read.file) : null, title };
}

/** HEAD and the item's file at HEAD (one git process), or undefined when HEAD could not be read. */
async function readItemAtHead(wt: Git, item: ItemKey): Promise<{ head?: string; path?: string; file?: Buffer } | undefined> {
  const local = item.source === 'local' && item.kind === 'item';
  if (!local) return {};
  const path = itemPath(item.id);
  // HEAD by its id, so the clone's one object reader answers (its process runs in the clone).
  const head = await wt.refs.detachedHead();
  const r = head ? await wt.objects.readObjects([head, `${head}:${path}`]) : undefined;
  const [commit, file] = r?.ok ? r.value : [];
  if (commit?.type !== 'commit') return undefined;
  return { head: commit.oid, path, ...(file?.type === 'blob' ? { file: file.content } : {}) };
}

/** Writes and stages the file with `status: done`; null (nothing written) when it is not `ready`. */
async function stageMarked(wt: Git, path: string, content: Buffer): Promise<string | null> {
  const marked = await markedText(content);
  if (marked === null) return null;
  await writeFile(join(wt.dir, path), Buffer.from(marked, 'latin1'));
  await wt.work.add([path]);
  return path;
}

/** The title the file gives, as one safe line; null when the file does not parse. */
async function titleOf(path: string, item: ItemKey, content: Buffer): Promise<string | null> {
  const { parseItemFile } = await import('./item-file.js');
  try {
    return sanitizeLine(parseItemFile(path, item, content.toString('utf8')).title, MAX_TITLE_CHARS);
  } catch (e) {
    if (isRefusal(e)) return null;
    throw e;
  }
}

/** The file's text with `status: done`, or null when it is not `ready`. */
async function markedText(content: Buffer): Promise<string | null> {
  // YAML is loaded only for an item that has a file to mark.
  const { markDone } = await import('./item-file.js');
  // latin1 maps every byte to one character and back, so bytes outside UTF-8 survive the rewrite.
  return markDone(content.toString('latin1'));
}
