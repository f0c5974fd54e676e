import { encodeClaim, type Claim } from '../records/claim.js';
import { writeRecordCommit } from '../remote/objects.js';
import type { RefUpdate } from '../remote/record-store.js';
import type { PorcelainRef } from '../remote/porcelain.js';
import type { Repo } from './repo.js';

/** Another record written in the same push as the claim (a queue entry, a receipt). */
export interface RecordWrite {
  ref: string;
  lease: string | null;
  /** The record's JSON, or null to delete the record. */
  content: string | null;
  message: string;
}

export type ClaimPush =
  | { ok: true; tip: string; written: Map<string, string | null> }
  | {
      ok: false;
      /** The claim ref is no longer at the lease: someone else wrote it. */
      claimMoved: boolean;
      remoteTip: string | null;
      /** Where the remote's refs of this push are now. */
      remoteTips: Map<string, string | null>;
      /** Other refs the remote refused (work branch, tags, main). */
      rejected: PorcelainRef[];
    };

/**
 * Writes the claim's next generation as a new commit on the tip just read, pushed with an
 * explicit lease, together with other records and `extra` refs in ONE atomic push (rule 2).
 */
export async function pushClaim(
  repo: Repo,
  o: { ref: string; lease: string | null; claim: Claim; message: string; records?: RecordWrite[]; extra?: RefUpdate[] },
): Promise<ClaimPush> {
  const writes: RecordWrite[] = [{ ref: o.ref, lease: o.lease, content: encodeClaim(o.claim), message: o.message }, ...(o.records ?? [])];
  // Independent records are built side by side: each is three short local git processes.
  const oids = await Promise.all(
    writes.map((w) =>
      w.content === null
        ? null
        : writeRecordCommit({ git: repo.git, content: w.content, parent: w.lease, message: w.message, author: repo.author, atMs: o.claim.at }),
    ),
  );
  const updates: RefUpdate[] = writes.map((w, i) => ({ ref: w.ref, newOid: oids[i] ?? null, lease: w.lease }));
  updates.push(...(o.extra ?? []));
  const r = await repo.store.push(updates, { atomic: true });
  const tip = updates[0]!.newOid!;
  if (r.ok) return { ok: true, tip, written: new Map(updates.map((u) => [u.ref, u.newOid])) };
  const remoteTip = r.remoteTips.get(o.ref) ?? null;
  return {
    ok: false,
    claimMoved: remoteTip !== o.lease,
    remoteTip,
    remoteTips: r.remoteTips,
    rejected: r.rejected.filter((p) => p.ref !== o.ref && p.reason !== 'atomic push failed'),
  };
}
