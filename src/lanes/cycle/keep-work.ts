// Keeping a cycle's work on the remote. Once the agent's work is taken, it is pushed to the
// cycle's work branch in one fenced push with the claim's next generation (as `abcd push`
// does for a session), before anything tries to land it: a lane killed with -9, a conflict or
// a failing check then leaves the work on the remote, named by the claim and the result. The
// branches a lane kept for an item go when a lane lands that item.
import { formatItem, type ItemKey } from '../../records/item.js';
import { refusePush, refuseWorkBranch, workBranchUpdate } from '../../claims/write.js';
import { isRefusal } from '../../core/refusals.js';
import type { ClaimKeeper } from '../../claims/claim-keeper.js';
import type { Repo } from '../../repo/repo.js';

/** Where every lane branch of an item lives: `lane/<item key, ':' as '-'>/`. */
export function laneBranchPrefix(item: ItemKey): string {
  return `lane/${formatItem(item).replace(/:/g, '-')}/`;
}

/** The work branch of one cycle of a run. */
export function cycleBranch(item: ItemKey, runId: string, n: number): string {
  return `${laneBranchPrefix(item)}${runId}-${n}`;
}

/**
 * Pushes `head` to `branch` with the claim's next generation naming them, through the keeper
 * (which owns the claim's tip). A branch this claim pushed before is replaced, leased on what
 * it pushed (a rebased head); anything else on it is never overwritten. Throws the refusal.
 */
export async function keepWork(keeper: ClaimKeeper, o: { item: string; branch: string; head: string }): Promise<void> {
  let update;
  const r = await keeper.push((claim) => {
    update = workBranchUpdate(claim, o.branch, o.head);
    return {
      claim: { ...claim, branch: o.branch, head: o.head },
      message: `keep ${o.branch} at ${o.head.slice(0, 12)} under ${claim.item} (generation ${claim.gen})`,
      extra: [update],
    };
  });
  if (r.ok) return;
  throw (
    (!r.claimMoved && update && refuseWorkBranch({ item: o.item, update, rejected: r.rejected })) ||
    refusePush(o.item, keeper.ref, keeper.tip, r)
  );
}

/**
 * After an item landed: deletes the lane branches kept for it on the remote (earlier cycles'
 * work that could not land, a killed lane's), each leased on the tip read, in a push of its
 * own. Best effort: the landing stands either way; what is left goes at the next landing.
 * Answers the branches deleted.
 */
export async function dropKeptBranches(lane: Repo, item: ItemKey): Promise<string[]> {
  try {
    const kept = await lane.store.remoteRefsUnder(`refs/heads/${laneBranchPrefix(item)}`);
    if (kept.size === 0) return [];
    const updates = [...kept].map(([ref, tip]) => ({ ref, newOid: null, lease: tip }));
    const r = await lane.store.push(updates, { atomic: false });
    const gone = r.ok ? updates : updates.filter((u) => r.remoteTips.get(u.ref) === null);
    return gone.map((u) => u.ref.slice('refs/heads/'.length));
  } catch (e) {
    if (isRefusal(e)) return [];
    throw e;
  }
}
