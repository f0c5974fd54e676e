// A lane's claim: taken from the snapshot it just read (no second round trip), consuming
// the item's pending slot in the same atomic push when it answers one; released on every
// way a cycle ends without landing.
import type { Claim } from '../../records/claim.js';
import { formatItem, shortItem, type ItemKey } from '../../records/item.js';
import { claimRef, pendingRef } from '../../records/refs.js';
import { pushClaim, type RecordWrite } from '../../claims/write.js';
import { standing } from '../../claims/rules.js';
import { observeClock } from '../../repo/clock-view.js';
import { sameSession } from '../../records/holder.js';
import type { Repo } from '../../repo/repo.js';
import { readSnapshot, type PendingEntry, type Snapshot } from '../../repo/snapshot.js';
import { unlessRefusal } from '../../core/best-effort.js';

/** What a released claim names when its work waits for the person's review. */
export type ClaimReview = NonNullable<Claim['review']>;

export interface Taken {
  ref: string;
  tip: string;
  claim: Claim;
  /** The pending request this claim consumed. */
  answered?: PendingEntry;
  /** The read the claim was taken on: the cycle's first look at requests starts from it. */
  seen: Snapshot;
}

/** A lapsed claim this clone may take over only later: its own sighting of the tip has not lasted the takeover delay yet. */
export interface TakeableLater {
  takeableAt: number;
}

/**
 * Takes the item's claim for the lane; `takeableAt` when it lapsed but may be taken over only
 * then; undefined when another session has it (or won the race).
 */
export async function takeClaim(
  lane: Repo,
  snap: Snapshot,
  item: ItemKey,
  ttlMs: number,
  note?: string,
): Promise<Taken | TakeableLater | undefined> {
  const ref = claimRef(item);
  const entry = snap.claims.get(ref);
  const now = lane.deps.clock.now();
  const seen =
    entry && entry.claim.state === 'held' && !sameSession(entry.claim.holder, lane.me)
      ? await lane.sightings.see(ref, entry.tip, now)
      : undefined;
  // Only a claim someone else may still hold needs the clock's view (a takeover).
  const view =
    entry && entry.claim.state === 'held' && !sameSession(entry.claim.holder, lane.me) ? await observeClock(lane, snap) : undefined;
  const st = standing(entry, lane.me, now, snap.settings, seen, view);
  if (st.kind === 'expired') return { takeableAt: st.takeableAt };
  if (st.kind === 'held' || st.kind === 'clock-unsafe') return undefined;
  const lease = st.kind === 'takeable' ? st.entry.tip : st.lease;
  const gen = st.kind === 'takeable' ? st.entry.claim.gen + 1 : st.gen;
  const claim: Claim = {
    abcd: 'claim',
    v: 1,
    item: formatItem(item),
    state: 'held',
    holder: lane.me,
    gen,
    at: now,
    ttl: ttlMs,
    ...(note ? { note } : {}),
    // Taken on a done item (a reopen): it keeps where the item landed, as `reserve --reopen` does.
    ...(entry?.claim.state === 'done' && entry.claim.landed ? { landed: entry.claim.landed } : {}),
  };
  const pending = snap.pending.get(pendingRef(item));
  const records: RecordWrite[] = pending
    ? [{ ref: pending.ref, lease: pending.tip, content: null, message: `take the pending request for ${claim.item}` }]
    : [];
  const r = await pushClaim(lane, { ref, lease, claim, message: `lane takes ${claim.item} (generation ${gen})`, records });
  if (!r.ok) return undefined;
  await lane.held.remember(ref, r.tip);
  return { ref, tip: r.tip, claim, seen: snap, ...(pending ? { answered: pending } : {}) };
}

/**
 * Writes a released generation of the lane's claim (reading it fresh), deleting the work
 * branch the claim recorded unless `keepBranch` (work that could not land stays on the
 * remote, and the released generation still names it). Best effort: a claim that moved is
 * someone else's now.
 */
export async function releaseClaim(
  lane: Repo,
  item: ItemKey,
  why: string,
  o: { keepBranch?: boolean; review?: ClaimReview } = {},
): Promise<void> {
  const ref = claimRef(item);
  try {
    const snap = await readSnapshot(lane);
    const e = snap.claims.get(ref);
    if (!e || e.claim.state !== 'held' || !sameSession(e.claim.holder, lane.me)) return;
    const c = e.claim;
    const drop = !o.keepBranch && c.branch && c.head && c.branch.startsWith('lane/');
    const extra = drop ? [{ ref: `refs/heads/${c.branch}`, newOid: null, lease: c.head ?? null }] : [];
    const { branch: _b, head: _h, ...rest } = c;
    await pushClaim(lane, {
      ref,
      lease: e.tip,
      claim: {
        ...(o.keepBranch ? c : rest),
        gen: c.gen + 1,
        at: lane.deps.clock.now(),
        state: 'released',
        ...(o.review ? { review: o.review } : {}),
      },
      message: `lane releases ${shortItem(item)}: ${why.slice(0, 200)}`,
      extra,
    });
  } catch (e) {
    // The remote went away: the claim expires on its own.
    unlessRefusal(undefined)(e);
  } finally {
    await lane.held.forget(ref);
  }
}
