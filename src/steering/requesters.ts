// Who may instruct a lane (an amendment) or ask it for a follow-up (the pending slot): the
// person the lane acts for, or a requester the person's signed settings name (ADR 0069).
//
// With the person's allowed-signers list, identity is proven, never stated: a request counts
// only when its commit is signed by a key the list maps to the person (the lane's git
// user.email) or to a requester principal. Without a list nothing can be proven: the record's
// stated identity is all there is, and abcd says requests are unprotected.
import type { Holder } from '../records/holder.js';
import type { Snapshot } from '../repo/snapshot.js';

/** What judging a request needs from a read: the settings in force and who signed what. */
export type RequestContext = Pick<Snapshot, 'settings' | 'requestTrust'>;

/** The request: its record's tip (what is signed) and the identity written inside it. */
export interface RequestOrigin {
  tip: string;
  stated: Holder;
}

export function acceptsRequest(req: RequestOrigin, lane: Holder, snap: RequestContext): boolean {
  return authorityOf({ protected: snap.requestTrust?.protected ?? false, principal: snap.requestTrust?.by.get(req.tip) }, req.stated, {
    lane,
    requesters: snap.settings.requesters,
  });
}

/** The one rule, for a request already verified (or not): proven principal, else stated person when unprotected. */
export function authorityOf(
  proof: { protected: boolean; principal?: string | undefined },
  stated: Holder,
  o: { lane: Holder; requesters: readonly string[] },
): boolean {
  const who = proof.protected ? proof.principal : stated.person;
  return who !== undefined && (who === o.lane.person || o.requesters.includes(who));
}

/** How status names a request's author: the principal its signature proves, or "unverified". */
export function provenAuthor(snap: RequestContext, tip: string): string {
  return snap.requestTrust?.by.get(tip) ?? 'unverified';
}
