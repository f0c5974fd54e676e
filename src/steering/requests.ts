// What a running cycle may absorb, read from one snapshot: steer records for its item, a
// build request that filled the item's pending slot while the lane held it, and a change of
// the item's file on main. Each is judged once: amendment or context (ADR 0033).
import type { Holder } from '../records/holder.js';
import { formatHolder } from '../records/holder.js';
import type { RequestId } from '../records/receipt.js';
import { pendingRef } from '../records/refs.js';
import type { Git } from '../git/git.js';
import { formatInstant } from '../core/duration.js';
import type { Snapshot } from '../repo/snapshot.js';
import type { Authority, EnvelopeEntry } from './envelope.js';
import { acceptsRequest, provenAuthor, type RequestContext, type RequestOrigin } from './requesters.js';

/** One request found by a poll, judged. */
export interface SteerCandidate extends EnvelopeEntry {
  req: RequestId;
  /** The writer's clock (ordering only). */
  at: number;
  /** A steer record's ref and tip: deleted with the landing once delivered. */
  record?: { ref: string; tip: string };
}

/** Who the lane is: it trusts the person it acts for and the requesters the signed settings name. */
export interface Authorities {
  lane: Holder;
}

/**
 * A request proven to come from the person the lane acts for, or from a requester the settings
 * name, is an amendment; anything else is context (requesters.ts says what "proven" means).
 */
export function judgeRequest(snap: RequestContext, req: RequestOrigin, a: Authorities): Authority {
  return acceptsRequest(req, a.lane, snap) ? 'amendment' : 'context';
}

export function requestKey(r: RequestId): string {
  return `${r.kind}:${r.id}`;
}

/** Steer records for `item` (canonical key) in the snapshot, judged; oldest first. */
export function steerCandidates(snap: Snapshot, item: string, a: Authorities): SteerCandidate[] {
  const out: SteerCandidate[] = [];
  for (const e of snap.steers.values()) {
    // Bound to this item by its ref and its body alike: a mismatch is skipped, never guessed at.
    if (e.item !== item || e.request.item !== item || !e.ref.endsWith(`/${e.request.id}`)) continue;
    // Consumed once: the same commit pushed again after its delivery is a replay.
    if (snap.requestTrust?.delivered?.has(e.tip)) continue;
    const r = e.request;
    out.push({
      req: { kind: 'steer', id: r.id },
      at: r.at,
      authority: judgeRequest(snap, { tip: e.tip, stated: r.author }, a),
      source: `steer ${r.id} by ${formatHolder(r.author)} (signed by ${provenAuthor(snap, e.tip)}) at ${formatInstant(r.at)}`,
      text: r.text,
      record: { ref: e.ref, tip: e.tip },
    });
  }
  return out.sort((x, y) => x.at - y.at || x.req.id.localeCompare(y.req.id));
}

/** A build request in the item's pending slot (an accepted requester's only), as a candidate. */
export function pendingCandidate(
  snap: Snapshot,
  itemKey: { source: string; kind: string; id: string },
  a: Authorities,
): SteerCandidate | undefined {
  const p = snap.pending.get(pendingRef(itemKey));
  if (!p || !acceptsRequest({ tip: p.tip, stated: p.request.requester }, a.lane, snap)) return undefined;
  const r = p.request;
  return {
    req: { kind: 'pending', id: p.tip },
    at: r.at,
    authority: 'amendment',
    source: `build request by ${formatHolder(r.requester)} at ${formatInstant(r.at)} (${r.coalesced} coalesced)`,
    text: r.note ?? '(a follow-up was requested without a note: reconcile the item as it is now)',
  };
}

/** The item file's blob on main at `tip`, or undefined when main has no such file. */
export async function itemBlob(git: Git, tip: string, path: string): Promise<string | undefined> {
  return git.objects.idAt(tip, path);
}

/** A change of the item's file on main: always context, whoever made it. */
export async function itemChangeCandidate(
  git: Git,
  o: { tip: string; path: string; blob: string | undefined; at: number },
): Promise<SteerCandidate> {
  const text = o.blob ? (await git.objects.mustReadText(o.blob)).slice(0, 8000) : '(the item file was removed from main)';
  return {
    req: { kind: 'item', id: o.blob ?? `removed-${o.tip.slice(0, 12)}` },
    at: o.at,
    authority: 'context',
    source: `the item file ${o.path} changed on main at ${o.tip.slice(0, 12)}; its text now`,
    text,
  };
}
