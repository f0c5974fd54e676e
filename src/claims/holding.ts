// Acting under a claim: the checks that this session holds it, and the refusals when it does not.
import { formatHolder, sameSession } from '../records/holder.js';
import { ClaimEnded, Fenced, NotHolder } from '../core/refusals.js';
import type { Repo } from '../repo/repo.js';
import type { ClaimEntry, Snapshot } from '../repo/snapshot.js';
import { refuseClaimedElsewhere } from './work-branch.js';

/**
 * Pushes in a row that may find the claim moved before an act gives up. Each retry reads
 * again: a newer generation of this session's own (another abcd process of this session
 * wrote it) is adopted and the act pushed on top of it; another holder's is fenced there.
 */
export const MAX_CLAIM_MOVES = 3;

/**
 * The claim on `ref` if this session holds it. Otherwise a refusal: Fenced (exit 5) when
 * this session held it and the tip moved on, NotHolder (exit 3) when it never did.
 */
export async function requireMine(repo: Repo, snap: Snapshot, ref: string, item: string): Promise<ClaimEntry> {
  const refused = snap.refused.get(ref);
  if (refused) throw refused.refusal;
  const entry = snap.claims.get(ref);
  if (entry && sameSession(entry.claim.holder, repo.me)) {
    if (entry.claim.state === 'held') return entry;
    // This session's own last generation (an act cut off after its push landed, e.g. by
    // kill -9 before it could note so locally): say what happened, not "moved on".
    throw claimEnded(repo, item, entry);
  }
  const now = entry
    ? `it is now ${entry.claim.state} by ${formatHolder(entry.claim.holder)} (generation ${entry.claim.gen})`
    : 'it has no claim on the remote';
  const data = {
    item,
    ref,
    session: formatHolder(repo.me),
    ...(entry ? { holder: formatHolder(entry.claim.holder), state: entry.claim.state, tip: entry.tip } : {}),
  };
  if (await repo.held.has(ref)) {
    throw new Fenced(
      `your claim on ${item} moved on: ${now}. Nothing was pushed. Reserve it again (abcd reserve ${item}) ` +
        'and reconcile with what the new holder did.',
      data,
    );
  }
  throw new NotHolder(`this session (${formatHolder(repo.me)}) does not hold ${item}: ${now}. Run abcd reserve ${item} first.`, data);
}

/**
 * The claim on `ref` if this session holds it (requireMine), for an act that pushes `branch`:
 * refused when another item's held claim recorded that branch (ADR 0013).
 */
export async function requireMineOnBranch(
  repo: Repo,
  snap: Snapshot,
  o: { ref: string; item: string; branch: string },
): Promise<ClaimEntry> {
  const entry = await requireMine(repo, snap, o.ref, o.item);
  refuseClaimedElsewhere(snap, o);
  return entry;
}

/** The refusal for a claim that moved under a push this session made while holding it. */
export function fencedAfterPush(item: string, ref: string, lease: string, remoteTip: string | null): Fenced {
  return new Fenced(
    `your claim on ${item} moved on while pushing (expected tip ${lease.slice(0, 12)}, the remote has ` +
      `${remoteTip ? remoteTip.slice(0, 12) : 'no claim'}). The remote refused the whole push: nothing changed. ` +
      `Run abcd status to see the new holder.`,
    { item, ref, expected: lease, actual: remoteTip },
  );
}

/** The refusal for an act under a claim this session itself released or landed. */
function claimEnded(repo: Repo, item: string, entry: ClaimEntry): ClaimEnded {
  const c = entry.claim;
  const data = { item, ref: entry.ref, session: formatHolder(repo.me), state: c.state, gen: c.gen, tip: entry.tip };
  if (c.state === 'done') {
    const where = c.landed ? ` on ${c.landed.main} at ${c.landed.tip.slice(0, 12)}` : '';
    return new ClaimEnded(
      `${item} already landed${where}, by this session (its generation ${c.gen} marked it done): there is nothing ` +
        `more to land, and nothing was pushed. To work on it again, abcd reserve ${item} --reopen.`,
      { ...data, ...(c.landed ? { landed: c.landed } : {}) },
    );
  }
  return new ClaimEnded(
    `this session released ${item} itself (generation ${c.gen}): it holds no claim on it now, and nothing was ` +
      `pushed. To work on it again, abcd reserve ${item}.`,
    data,
  );
}
