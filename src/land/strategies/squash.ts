// The squash strategy's one commit (ADR 0093): after the work is rebased onto its base (as the
// rebase strategy does, conflicts refused the same way: worktree.ts), its commits collapse into
// one commit on the base whose tree is the rebased tree plus the item's done mark, so main's log
// reads as the items landed and no bookkeeping commit follows each one.
import { shortItem, formatItem, parseItem } from '../../records/item.js';
import { consumptionTrailers, type Consumption } from '../../records/receipt.js';
import { sanitizeLine } from '../../core/sanitize.js';
import { stageItemDone } from '../../items/mark-done.js';
import type { Git } from '../../git/git.js';

// The integration worktree is abcd's own: still, a commit there must not sign, prompt or run hooks.
// How many of the work's own commit subjects the body lists; past it, how many more there were.
const MAX_SUBJECTS_LISTED = 30;
// One listed subject: an agent wrote it, so one safe line of a length a log can show.
const MAX_SUBJECT_CHARS = 200;

/** The trailer naming the item a squash commit landed: `Abcd-Item: local:item:<slug>`. */
export const ITEM_TRAILER = 'Abcd-Item';

export interface SquashInput {
  item: string;
  /** The commit the work was rebased onto; the worktree's HEAD is the rebased work. */
  base: string;
  markDone: boolean;
  consumed?: Consumption;
  /** Author, committer and dates of the one commit: fixed by the caller, so every clone makes the same commit. */
  env: Record<string, string>;
}

/**
 * Collapses the rebased work at HEAD into one commit on `base`, the item's file marked done in
 * it, and returns that commit (also the worktree's HEAD). Its message: the item's title (its
 * file in the integrated tree; the item's key without one) as the subject, the work's own
 * commit subjects as the body, then the trailers: the item, and what a lane's run absorbed
 * (receipts read them from main's first-parent history, this commit being the landed tip).
 */
export async function squashOnto(wt: Git, o: SquashInput): Promise<string> {
  const key = parseItem(o.item);
  const subjects = (await wt.history.log({ revs: [`${o.base}..HEAD`], format: '%s', reverse: true })).split('\n').filter(Boolean);
  const { title } = await stageItemDone(wt, key, { mark: o.markDone });
  // The index keeps the rebased tree (and the staged mark) while HEAD goes back to the base.
  await wt.work.resetSoft(o.base);
  const message = squashMessage({
    title: title ?? shortItem(key),
    subjects,
    trailers: [`${ITEM_TRAILER}: ${formatItem(key)}`, ...(o.consumed ? consumptionTrailers(o.consumed) : [])],
  });
  // Empty when the work's changes are already on the base: still the item's one commit, with its trailers.
  await wt.work.commit(message, { allowEmpty: true, env: o.env });
  return wt.refs.head();
}

/** The message: subject, the listed subjects, then the trailers as the last paragraph (where git reads them). */
export function squashMessage(o: { title: string; subjects: readonly string[]; trailers: readonly string[] }): string {
  const listed = o.subjects.slice(0, MAX_SUBJECTS_LISTED).map((s) => `- ${sanitizeLine(s, MAX_SUBJECT_CHARS)}`);
  const more = o.subjects.length - listed.length;
  if (more > 0) listed.push(`- and ${more} more commit${more === 1 ? '' : 's'}`);
  return (
    [sanitizeLine(o.title, MAX_SUBJECT_CHARS), ...(listed.length ? [listed.join('\n')] : []), o.trailers.join('\n')].join('\n\n') + '\n'
  );
}
