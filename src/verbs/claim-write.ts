import { encodeClaim, type Claim } from '../records/claim.js';
import { writeRecordCommit } from '../remote/objects.js';
import type { RefUpdate } from '../remote/record-store.js';
import type { PorcelainRef } from '../remote/porcelain.js';
import type { Repo } from './repo.js';

export type ClaimPush =
  | { ok: true; tip: string }
  | {
      ok: false;
      /** The claim ref is no longer at the lease: someone else wrote it. */
      claimMoved: boolean;
      remoteTip: string | null;
      /** Other refs the remote refused (work branch, tags, main). */
      rejected: PorcelainRef[];
    };

/**
 * Writes the claim's next generation as a new commit on the tip just read, pushed with an
 * explicit lease, together with `extra` refs in ONE atomic push (rule 2).
 */
export async function pushClaim(
  repo: Repo,
  o: { ref: string; lease: string | null; claim: Claim; extra?: RefUpdate[]; message: string },
): Promise<ClaimPush> {
  const tip = await writeRecordCommit({
    gitdir: repo.commonDir,
    content: encodeClaim(o.claim),
    parent: o.lease,
    message: o.message,
    author: repo.author,
    atMs: o.claim.at,
  });
  const updates: RefUpdate[] = [{ ref: o.ref, newOid: tip, lease: o.lease }, ...(o.extra ?? [])];
  const r = await repo.store.push(updates, { atomic: true });
  if (r.ok) return { ok: true, tip };
  const remoteTip = r.remoteTips.get(o.ref) ?? null;
  return {
    ok: false,
    claimMoved: remoteTip !== o.lease,
    remoteTip,
    rejected: r.rejected.filter((p) => p.ref !== o.ref && p.reason !== 'atomic push failed'),
  };
}
