// The claim a reserve writes: a new one, a takeover, or a renewal of our own.
import { unknownClaimFields, type Claim } from '../records/claim.js';
import type { Holder } from '../records/holder.js';
import { formatItem, type ItemKey } from '../records/item.js';
import type { ClaimEntry } from '../repo/snapshot.js';

/**
 * The generation a reserve writes, on either path (reserve.ts, reserve-fast.ts): a newer abcd's
 * fields at this `v` outlive it, a reopened item keeps where it landed (so releasing it again
 * restores the done mark), and `kept` carries what a renewal keeps of its own claim.
 */
export function reserveClaim(o: {
  me: Holder;
  item: ItemKey;
  entry: ClaimEntry | undefined;
  gen: number;
  now: number;
  ttl: number;
  since: number;
  note: string | undefined;
  kept?: Partial<Claim>;
}): Claim {
  const { entry } = o;
  return {
    ...(entry ? unknownClaimFields(entry.claim) : {}),
    abcd: 'claim',
    v: 1,
    item: formatItem(o.item),
    state: 'held',
    holder: o.me,
    gen: o.gen,
    at: o.now,
    ttl: o.ttl,
    since: o.since,
    ...o.kept,
    ...(entry?.claim.state === 'done' && entry.claim.landed ? { landed: entry.claim.landed } : {}),
    ...(o.note !== undefined ? { note: o.note } : {}),
  };
}
