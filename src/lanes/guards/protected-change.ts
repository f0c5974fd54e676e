// Which protected paths a lane's work touches (repo/protected-paths.ts holds the rule): the
// paths its change adds, changes or deletes against the commit it was built on, less its own
// item's file when the only change there is the done mark.
import type { Git } from '../../git/git.js';
import { itemPath } from '../../items/item-path.js';
import type { ItemKey } from '../../records/item.js';
import { sanitizeLine } from '../../core/sanitize.js';
import { protectedPathsOf } from '../../repo/protected-paths.js';
import { MAX_REVIEW_PATHS } from '../../records/claim.js';

// A path as a record names it: one printable line of a length a record holds.
const MAX_PATH_CHARS = 500;

/** The protected paths `head` changes since `base`, sorted, each as one printable line (at most MAX_REVIEW_PATHS). */
export async function protectedChange(
  git: Git,
  o: { base: string; head: string; item: ItemKey; extra: readonly string[] },
): Promise<string[]> {
  // -z: every byte of a hostile name as it is, no quoting; --no-renames: a move names both ends.
  const changed = await git.diff.changedPaths(o.base, o.head);
  const mark = o.item.source === 'local' && o.item.kind === 'item' ? itemPath(o.item.id) : undefined;
  const exempt = mark && changed.includes(mark) && (await onlyMarkedDone(git, o.base, o.head, mark)) ? mark : undefined;
  const paths = protectedPathsOf(changed, { extra: o.extra, ...(exempt ? { exempt } : {}) });
  const shown = [...new Set(paths.map((p) => sanitizeLine(p, MAX_PATH_CHARS)))];
  return shown.length > MAX_REVIEW_PATHS ? shown.slice(0, MAX_REVIEW_PATHS) : shown;
}

/** Whether the item's file differs between the two commits only in its status line, now `done`. */
async function onlyMarkedDone(git: Git, base: string, head: string, path: string): Promise<boolean> {
  const [before, after] = await Promise.all([base, head].map((c) => git.objects.readBlobAt(c, path)));
  if (!before || !after) return false;
  const status = /^status:[^\n]*$/m;
  const a = after.toString();
  if (!/^status:\s*done\s*$/m.test(a)) return false;
  return before.toString().replace(status, '') === a.replace(status, '');
}
