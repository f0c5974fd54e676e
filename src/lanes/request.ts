// `abcd build <item>` while another lane holds the item never cancels that lane: it writes
// the item's single pending slot, replacing an older request (compare-and-swap on its tip:
// the newest wins), and the active lane or the next build/drain answers it.
import { formatHolder, type Holder } from '../records/holder.js';
import { formatItem, shortItem, type ItemKey } from '../records/item.js';
import { encodePending, type PendingRecord } from '../records/pending.js';
import { pendingRef } from '../records/refs.js';
import { NotRequester, RemoteUnavailable } from '../core/refusals.js';
import { writeRecordCommit } from '../records/objects.js';
import type { Repo } from '../repo/repo.js';
import { readSnapshot, type Snapshot } from '../repo/snapshot.js';
import { acceptsRequest } from '../steering/requesters.js';

// An unanswered request stands this long; then pruning may remove it.
const PENDING_TTL_MS = 86_400_000;
// Requests racing for one slot: each loss means a newer one was just written, so retry a few times.
const MAX_LOST_RACES = 5;

export interface PendingOutcome {
  item: string;
  ref: string;
  tip: string;
  holder: string;
  replaced: boolean;
  coalesced: number;
  note?: string;
}

export async function requestFollowUp(
  repo: Repo,
  o: { snap: Snapshot; item: ItemKey; holder: Holder; note?: string; requesters: readonly string[] },
): Promise<PendingOutcome> {
  const item = shortItem(o.item);
  if (!acceptsRequest(repo.me, o.holder, o.requesters)) {
    throw new NotRequester(
      `${item} is held by ${formatHolder(o.holder)}, and this session (${formatHolder(repo.me)}) is neither that person nor named ` +
        'in lanes.requesters of .abcd/config.json on main; no request was recorded. Ask the person to add you there, or wait for the lane to finish.',
      { item, holder: formatHolder(o.holder), requester: formatHolder(repo.me) },
    );
  }
  const ref = pendingRef(o.item);
  let snap = o.snap;
  for (let lost = 0; ; lost++) {
    const old = snap.pending.get(ref);
    const now = repo.deps.clock.now();
    const rec: PendingRecord = {
      abcd: 'pending',
      v: 1,
      item: formatItem(o.item),
      requester: repo.me,
      at: now,
      ttl: PENDING_TTL_MS,
      ...(o.note !== undefined ? { note: o.note } : {}),
      coalesced: (old?.request.coalesced ?? 0) + 1,
    };
    const oid = await writeRecordCommit({
      git: repo.git,
      content: encodePending(rec),
      parent: old?.tip ?? null,
      message: `request a follow-up of ${rec.item}`,
      author: repo.author,
      atMs: now,
    });
    const r = await repo.store.push([{ ref, newOid: oid, lease: old?.tip ?? null }], { atomic: true });
    if (r.ok) {
      return {
        item,
        ref,
        tip: oid,
        holder: formatHolder(o.holder),
        replaced: Boolean(old),
        coalesced: rec.coalesced,
        ...(o.note !== undefined ? { note: o.note } : {}),
      };
    }
    if (lost >= MAX_LOST_RACES) {
      throw new RemoteUnavailable(
        `the pending slot ${ref} kept changing while this request was written; nothing was recorded. Try again.`,
        { outcome: 'unchanged', ref },
      );
    }
    snap = await readSnapshot(repo);
  }
}
