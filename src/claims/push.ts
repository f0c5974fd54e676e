// `abcd push`: the work branch and tags pushed atomically with a renewal of the claim.
import { expiresAt, type Claim } from '../records/claim.js';
import { shortItem, type ItemKey } from '../records/item.js';
import { claimRef, isRefSafe } from '../records/refs.js';
import { UsageError } from '../core/refusals.js';
import type { RefUpdate } from '../records/store.js';
import { pushClaim, refusePush, refuseWorkBranch, workBranchUpdate } from './write.js';
import { MAX_CLAIM_MOVES, requireMineOnBranch } from './holding.js';
import { refuseMainBranch, resolveWorkBranch } from './work-branch.js';
import { resolveMainBranch } from '../repo/main-name.js';
import type { Repo } from '../repo/repo.js';
import { readSnapshot } from '../repo/snapshot.js';

export interface PushInput {
  item: ItemKey;
  /** Local branch to push; the current branch when absent. */
  branch?: string;
  tags: string[];
}

export interface PushResultData {
  item: string;
  branch: string;
  head: string;
  tags: string[];
  claimTip: string;
  gen: number;
  expiresAt: number;
}

/**
 * Pushes the work branch and tags in one atomic push with a renewal of the claim: a claim fences every push under it by its tip.
 * Never main (only land writes it), a record branch, or a branch another claim recorded.
 */
export async function pushWork(repo: Repo, input: PushInput): Promise<PushResultData> {
  const item = shortItem(input.item);
  const ref = claimRef(input.item);
  const [{ branch, head }, main] = await Promise.all([resolveWorkBranch(repo, input.branch, 'push'), resolveMainBranch(repo)]);
  refuseMainBranch({ item, branch, main });
  const extra: RefUpdate[] = [];
  for (const t of input.tags) {
    const tagRef = `refs/tags/${t}`;
    if (!isRefSafe(tagRef)) throw new UsageError(`"${t}" is not a valid tag name.`, 'tag', { tag: t });
    extra.push({ ref: tagRef, newOid: (await repo.git.refs.resolve(tagRef)) ?? head });
  }
  for (let attempt = 1; ; attempt++) {
    const snap = await readSnapshot(repo);
    const entry = await requireMineOnBranch(repo, snap, { ref, item, branch });
    const work = workBranchUpdate(entry.claim, branch, head);
    const claim: Claim = { ...entry.claim, gen: entry.claim.gen + 1, at: repo.deps.clock.now(), branch, head };
    const r = await pushClaim(repo, {
      ref,
      lease: entry.tip,
      claim,
      extra: [work, ...extra],
      message: `push ${branch} under ${claim.item} (generation ${claim.gen})`,
    });
    if (r.ok) {
      await repo.held.remember(ref, r.tip);
      return { item, branch, head, tags: input.tags, claimTip: r.tip, gen: claim.gen, expiresAt: expiresAt(claim) };
    }
    if (r.claimMoved && attempt < MAX_CLAIM_MOVES) continue;
    throw (!r.claimMoved && refuseWorkBranch({ item, update: work, rejected: r.rejected })) || refusePush(item, ref, entry.tip, r);
  }
}
