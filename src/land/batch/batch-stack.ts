// A batch's stack: its entries integrated onto a base in queue order, each exactly as its own
// land would bring it (speculation.ts), and the commit that lands them: a merge commit whose
// first parent is the base and whose tree is the stack's, so main's first-parent history stays
// made of commits tested on exactly their tree and parent, whatever --strategy said. Only one
// entry squashed lands as its own commit: that one commit is the tested tree on the base. Either
// way the landing carries every entry's trailers (`Abcd-Item`, a run's `Abcd-Run` and
// `Abcd-Consumed`), so main's history alone proves what landed (landed-proof.ts).
// Deterministic like every integration: any clone makes the same commits.
import type { Env } from '../../core/deps.js';
import { Conflict, isRefusal } from '../../core/refusals.js';
import { sanitizeLine } from '../../core/sanitize.js';
import type { Git } from '../../git/git.js';
import { formatItem, parseItem, shortItem } from '../../records/item.js';
import { consumptionTrailers, ConsumptionSchema } from '../../records/receipt.js';
import type { QueueEntry } from '../../repo/snapshot.js';
import type { LandingShape } from '../landed-proof.js';
import { entryIntegration } from '../speculation/speculation.js';
import { ITEM_TRAILER } from '../strategies/squash.js';
import { integrate } from '../worktree.js';

export interface BatchStack {
  base: string;
  members: QueueEntry[];
  /** The last entry's integrated commit: what the checks run on. */
  tip: string;
  tree: string;
  /** What main becomes: `tip` for one squashed entry, else the merge commit of `base` and `tip`. */
  landing: string;
  shape: LandingShape;
}

export type Stacked = { kind: 'stack'; stack: BatchStack } | { kind: 'conflict'; entry: QueueEntry; error: Conflict };

/** Integrates `members` onto `base` in the worktree; the first that does not integrate stops it. */
export async function stackBatch(wt: Git, o: { env: Env; base: string; members: readonly QueueEntry[] }): Promise<Stacked> {
  let tip = o.base;
  let current = '';
  const commits: string[] = [];
  for (const q of o.members) {
    try {
      tip = current = await integrate(wt, { ...entryIntegration(q, tip), env: o.env, current });
      commits.push(tip);
    } catch (e) {
      if (isRefusal(e) && e instanceof Conflict) return { kind: 'conflict', entry: q, error: e };
      throw e;
    }
  }
  return { kind: 'stack', stack: await finishStack(wt, { base: o.base, members: o.members, tip, commits }) };
}

/** The stack of `members` integrated onto `base` up to `tip` (`commits`: each one's own commit), with its landing commit. */
export async function finishStack(
  wt: Git,
  o: { base: string; members: readonly QueueEntry[]; tip: string; commits: readonly string[] },
): Promise<BatchStack> {
  const tree = await wt.objects.treeOf(o.tip);
  const members = [...o.members];
  const shape = landingShapeOf(members);
  const landing = shape === 'squash' ? o.tip : await batchMerge(wt, { base: o.base, tip: o.tip, tree, members, commits: [...o.commits] });
  return { base: o.base, members, tip: o.tip, tree, landing, shape };
}

/** How a batch's piece lands: a squash is one commit on the base, tested and carrying its trailers; anything else goes behind a merge. */
export function landingShapeOf(members: readonly QueueEntry[]): LandingShape {
  return members.length === 1 && members[0]!.entry.strategy === 'squash' ? 'squash' : 'merge';
}

/**
 * The merge commit landing the entries (one rebased or merged, or several): committed as the first entry's work head's committer
 * at its enqueue time (as its own integration is), its message listing each entry's commit and
 * carrying every entry's trailers, so main's first-parent history names each item and each run.
 */
async function batchMerge(
  wt: Git,
  o: { base: string; tip: string; tree: string; members: QueueEntry[]; commits: string[] },
): Promise<string> {
  const first = o.members[0]!;
  const [name = '', email = ''] = (await wt.history.show(first.entry.head, '%cn%x00%ce')).split('\0');
  const date = `@${Math.floor(first.entry.at / 1000)} +0000`;
  const lines: string[] = [];
  const trailers: string[] = [];
  for (const [k, q] of o.members.entries()) {
    const key = parseItem(q.item);
    const subject = await wt.history.show(o.commits[k]!, '%s');
    lines.push(`- ${sanitizeLine(subject, 200)} (${formatItem(key)})`);
    trailers.push(`${ITEM_TRAILER}: ${formatItem(key)}`);
    const consumed = ConsumptionSchema.safeParse((q.entry as Record<string, unknown>).consumed);
    if (consumed.success) trailers.push(...consumptionTrailers(consumed.data));
  }
  const title = o.members.length === 1 ? `Land ${shortItem(parseItem(first.item))}` : `Land ${o.members.length} items in one batch`;
  const message = [title, lines.join('\n'), trailers.join('\n')].join('\n\n');
  const env = {
    GIT_AUTHOR_NAME: name,
    GIT_AUTHOR_EMAIL: email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: name,
    GIT_COMMITTER_EMAIL: email,
    GIT_COMMITTER_DATE: date,
  };
  return wt.objects.mustCommitTree({ tree: o.tree, parents: [o.base, o.tip], message: `${message}\n`, env });
}
