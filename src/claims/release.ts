// `abcd release`: the claim given up, in one fenced push.
import { unknownClaimFields, type Claim } from '../records/claim.js';
import { formatHolder } from '../records/holder.js';
import { formatItem, shortItem, type ItemKey } from '../records/item.js';
import { claimRef, queueRef } from '../records/refs.js';
import { Conflict, UsageError } from '../core/refusals.js';
import { pushClaim, type ClaimPush } from './write.js';
import type { Repo } from '../repo/repo.js';
import { readSnapshot } from '../repo/snapshot.js';

export interface ForceReleaseResult {
  item: string;
  ref: string;
  /** The released generation written, or the tip left alone when there was nothing to clear. */
  tip: string | null;
  gen: number;
  cleared: boolean;
  /** What was replaced: its holder and state when readable, else why abcd refused it. */
  replaced?: { tip: string; holder?: string; state?: Claim['state']; refused?: string };
  /** The item's queue entry, deleted in the same push. */
  dequeued?: string;
}

/**
 * The person clears a claim they judge dead, or a record abcd refuses (corrupt, too new,
 * future-dated, foreign): a released generation on the tip just read, leased on it, that
 * says who cleared it (its holder) and when (its `at`), and what it replaced. It reads no
 * more of the old record than its tip, so it works when that record does not decode.
 */
export async function forceRelease(repo: Repo, input: { item: ItemKey }): Promise<ForceReleaseResult> {
  const item = shortItem(input.item);
  const ref = claimRef(input.item);
  const snap = await readSnapshot(repo);
  const entry = snap.claims.get(ref);
  const refused = snap.refused.get(ref);
  const tip = entry?.tip ?? refused?.tip;
  if (!tip) return { item, ref, tip: null, gen: 0, cleared: false };
  const prev = entry?.claim;
  if (prev?.state === 'released') return { item, ref, tip, gen: prev.gen, cleared: false };
  if (prev?.state === 'done') {
    throw new UsageError(
      `${item} landed (its claim is done, generation ${prev.gen}): there is no live claim to clear, and the done mark ` +
        `keeps lanes from redoing it. To work on it again, abcd reserve ${item}.`,
      'item-landed',
      { item, ref, state: 'done' },
    );
  }
  const refusedWhy = refused ? String(refused.refusal.data.reason ?? refused.refusal.code) : undefined;
  const replaced = {
    tip,
    ...(prev ? { holder: prev.holder, state: prev.state } : {}),
    ...(refusedWhy ? { refused: refusedWhy.slice(0, 64) } : {}),
  };
  const claim: Claim = {
    ...(prev ? unknownClaimFields(prev) : {}),
    abcd: 'claim',
    v: 1,
    item: formatItem(input.item),
    state: 'released',
    holder: repo.me,
    gen: prev ? prev.gen + 1 : 0,
    at: repo.deps.clock.now(),
    ttl: prev?.ttl ?? snap.settings.defaultTtl,
    cleared: replaced,
  };
  // The item's queue entry goes in the same push: it cannot land without its claim, and one
  // abcd refuses to read would otherwise stay until someone deletes it by hand.
  const qref = queueRef(input.item);
  const qtip = snap.queue.get(qref)?.tip ?? snap.refused.get(qref)?.tip;
  const records = qtip ? [{ ref: qref, lease: qtip, content: null, message: `dequeue ${claim.item} (release --force)` }] : [];
  const r = await pushClaim(repo, {
    ref,
    lease: tip,
    claim,
    records,
    message: `clear ${claim.item} (release --force by ${formatHolder(repo.me)})`,
  });
  if (!r.ok) throw changedWhileClearing(r, { item, ref, tip, qref, qtip });
  await repo.held.forget(ref);
  const shown = {
    tip,
    ...(prev ? { holder: formatHolder(prev.holder), state: prev.state } : {}),
    ...(refusedWhy ? { refused: refusedWhy } : {}),
  };
  return { item, ref, tip: r.tip, gen: claim.gen, cleared: true, replaced: shown, ...(qtip ? { dequeued: qref } : {}) };
}

/** The refusal when the claim or its queue entry moved between the read and the clearing push. */
function changedWhileClearing(
  r: Extract<ClaimPush, { ok: false }>,
  o: { item: string; ref: string; tip: string; qref: string; qtip: string | undefined },
): Conflict {
  const { item, ref, tip, qref, qtip } = o;
  const what = r.claimMoved ? 'claim' : 'queue entry';
  const now = r.remoteTips.get(r.claimMoved ? ref : qref) ?? null;
  return new Conflict(
    `${item}'s ${what} changed while clearing it (read ${(r.claimMoved ? tip : (qtip ?? '')).slice(0, 12)}, the remote has ` +
      `${now ? now.slice(0, 12) : 'none'}); nothing changed. Run abcd status and judge it again.`,
    { item, ref: r.claimMoved ? ref : qref, expected: r.claimMoved ? tip : qtip, actual: now },
  );
}
