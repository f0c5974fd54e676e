// The landed-proof rule (ADR 0097): a land that did not push main itself (a batch's member, a
// land started again after its claim was marked done) believes it landed only when main's own
// history says so: the commit the claim names is on main's first-parent line and its trailers
// name the item. Every landing a batch's head makes carries them (batch-stack.ts), whatever
// shape the piece took, so a claim record alone, which anyone who can push can write, never
// makes work count as landed.
import type { Git } from '../git/git.js';
import { ClaimEnded, Fenced } from '../core/refusals.js';
import { formatItem, type ItemKey } from '../records/item.js';
import { ITEM_TRAILER } from './strategies/squash.js';

// How far back main's first-parent line is searched: a landing older than this many commits
// is not what a land that is still running waits for.
const MAX_FIRST_PARENTS = 2000;

/** How a batch's piece came onto main: behind a merge commit, or as the item's one squash commit. */
export type LandingShape = 'merge' | 'squash';

export interface LandingProof {
  tip: string;
  /** The commit main had before it: the landing's first parent. */
  parent?: string;
  shape: LandingShape;
}

/**
 * Whether `tip` is on the first-parent line of `mainTip` and carries an `Abcd-Item` trailer
 * naming `item`: the proof, or undefined. One git process.
 */
export async function landingProven(git: Git, o: { mainTip: string; tip: string; item: ItemKey }): Promise<LandingProof | undefined> {
  const fmt = `%H%x1f%P%x1f%(trailers:key=${ITEM_TRAILER},valueonly,separator=%x1e)%x1d`;
  const r = await git.history.tryLog({ revs: [o.mainTip], firstParent: true, maxCount: MAX_FIRST_PARENTS, format: fmt });
  if (!r.ok) return undefined;
  const want = formatItem(o.item);
  for (const record of r.value.toString().split('\x1d')) {
    const [oid = '', parents = '', items = ''] = record.replace(/^\n/, '').split('\x1f');
    if (oid !== o.tip) continue;
    if (
      !items
        .split('\x1e')
        .map((s) => s.trim())
        .includes(want)
    )
      return undefined;
    const ps = parents.split(' ').filter(Boolean);
    return { tip: oid, ...(ps[0] ? { parent: ps[0] } : {}), shape: ps.length > 1 ? 'merge' : 'squash' };
  }
  return undefined;
}

/**
 * A land started again on a claim a batch's head marked done (its own land killed, or the
 * head's after its push): the refusal says the item landed only when main's history proves it;
 * otherwise the claim was written by someone else, and the land is fenced, as a member is.
 */
export async function explainEndedClaim(git: Git, o: { mainTip: string; item: ItemKey; short: string }, e: unknown): Promise<never> {
  if (!(e instanceof ClaimEnded)) throw e;
  const landed = (e.data as { landed?: { tip?: unknown; batch?: { by?: unknown } } }).landed;
  if (typeof landed?.tip !== 'string' || typeof landed.batch?.by !== 'string') throw e;
  const proof = await landingProven(git, { mainTip: o.mainTip, tip: landed.tip, item: o.item });
  const at = landed.tip.slice(0, 12);
  if (!proof) {
    throw new Fenced(
      `${o.short}'s claim was marked done in ${landed.batch.by}'s batch, but main does not hold a landing of it at ${at}; ` +
        'nothing landed. Run abcd status to see who wrote the claim.',
      { item: o.short, ref: e.data.ref, state: 'done', actual: e.data.tip },
    );
  }
  throw new ClaimEnded(
    `${o.short} already landed at ${at} in ${landed.batch.by}'s batch (main's history holds it, as a ${proof.shape}): there is ` +
      `nothing more to land, and nothing was pushed. To work on it again, abcd reserve ${o.short} --reopen.`,
    e.data,
  );
}
