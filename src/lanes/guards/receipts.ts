// Receipts (ADR 0034): what a successful cycle absorbed in flight, written by the lane host in
// the fenced push that lands the work; and the pending run's check against the latest one,
// which fails open in every direction (a false "done" drops work, a false "not done" costs
// one short run).
import type { Holder } from '../../records/holder.js';
import { formatItem, type ItemKey } from '../../records/item.js';
import {
  CONSUMED_TRAILER,
  ConsumptionSchema,
  consumedValue,
  encodeReceipt,
  RUN_TRAILER,
  sameRequest,
  type Consumption,
  type ReceiptRecord,
  type RequestId,
} from '../../records/receipt.js';
import type { Git } from '../../git/git.js';
import { claimRef, RECORD_FILE, receiptRef } from '../../records/refs.js';
import { decodeClaim, type Claim } from '../../records/claim.js';
import type { RecordWrite } from '../../claims/write.js';
import type { Repo } from '../../repo/repo.js';
import type { PendingEntry, Snapshot } from '../../repo/snapshot.js';
import { acceptsRequest } from '../../steering/requesters.js';
import { judgeRequest } from '../../steering/requests.js';
import type { SteerWatcher } from '../run/watcher.js';
import { unlessRefusal } from '../../core/best-effort.js';

/**
 * The records a landing writes for the requests its cycle absorbed: the item's new receipt
 * and the deletion of each delivered steer record (written once, so their leases hold).
 * Nothing when the cycle absorbed nothing in flight or never read the receipt's tip.
 */
export function receiptWrites(o: {
  watcher: SteerWatcher;
  item: ItemKey;
  runId: string;
  holder: Holder;
  gen: number;
  at: number;
  head: string;
}): RecordWrite[] {
  const consumed = o.watcher.delivered.map((c) => c.req);
  const lease = o.watcher.receiptTip;
  if (!consumed.length || lease === undefined) return [];
  const receipt: ReceiptRecord = {
    abcd: 'receipt',
    v: 1,
    item: formatItem(o.item),
    runId: o.runId,
    holder: o.holder,
    gen: o.gen,
    at: o.at,
    head: o.head,
    consumed,
  };
  const ids = consumed.map((c) => `${c.kind} ${c.id.slice(0, 24)}`).join(', ');
  return [
    { ref: receiptRef(o.item), lease, content: encodeReceipt(receipt), message: `receipt: run ${o.runId} absorbed ${ids}` },
    ...o.watcher.delivered.flatMap((c) =>
      c.record ? [{ ref: c.record.ref, lease: c.record.tip, content: null, message: `delivered by run ${o.runId}` }] : [],
    ),
  ];
}

/** What the cycle absorbed in flight, for the trailers of the commit that marks its item done. */
export function consumptionOf(watcher: SteerWatcher, runId: string): Consumption | undefined {
  const requests = watcher.delivered.map((c) => c.req);
  if (!requests.length) return undefined;
  const c = { runId, requests };
  // A run id abcd did not make (one not fit for a trailer) records nothing: the receipt stays a hint.
  return ConsumptionSchema.safeParse(c).success ? c : undefined;
}

/**
 * Whether the item's latest receipt lists `req`: a hint only, never a reason to skip. Fails
 * open: no receipt, a receipt this abcd refused (corrupt, too new), one for another item, or
 * an id not listed all answer false.
 */
export function receiptCovers(snap: Snapshot, item: ItemKey, req: RequestId): boolean {
  const e = snap.receipts.get(receiptRef(item));
  if (!e || e.receipt.item !== formatItem(item)) return false;
  return e.receipt.consumed.some((c) => sameRequest(c, req));
}

// How far back main's first-parent history is searched for a landing: a receipt older than
// this many landings proves nothing, and the request is answered again.
const MAX_LANDINGS_SEARCHED = 2000;

/**
 * Whether main's own history proves `req` consumed: the receipt lists it, the commit the
 * receipt names as its landed head is on main's first-parent history with trailers naming the
 * receipt's run and this request, and the item's claim says a lane's landing of that run wrote
 * it (landedByRun). A few git processes, only when a receipt lists the request. Fails open:
 * anyone can write a receipt record, only land writes main, only a lane's land binds a run.
 */
export async function consumptionProven(git: Git, o: { snap: Snapshot; mainTip: string; item: ItemKey; req: RequestId }): Promise<boolean> {
  if (!receiptCovers(o.snap, o.item, o.req)) return false;
  const r = o.snap.receipts.get(receiptRef(o.item))!.receipt;
  const fmt = `%H%x1f%(trailers:key=${RUN_TRAILER},valueonly,separator=%x1e)%x1f%(trailers:key=${CONSUMED_TRAILER},valueonly,separator=%x1e)`;
  const out = await git.history.tryLog({
    revs: [o.mainTip],
    firstParent: true,
    maxCount: MAX_LANDINGS_SEARCHED,
    grep: `${RUN_TRAILER}: ${r.runId}`,
    format: fmt,
  });
  if (!out.ok) return false;
  const want = consumedValue(o.req);
  const onMain = out.value
    .toString()
    .split('\n')
    .some((line) => {
      const [oid, runs = '', consumed = ''] = line.split('\x1f');
      return oid === r.head && runs.split('\x1e').includes(r.runId) && consumed.split('\x1e').includes(want);
    });
  return onMain && (await landedByRun(git, { snap: o.snap, item: o.item, head: r.head, runId: r.runId }));
}

// Claim generations searched for the landing that wrote a receipt's trailers: an item is
// reopened and landed a few times between a request and its answer, not hundreds.
const MAX_CLAIM_GENERATIONS_SEARCHED = 64;

/**
 * Whether abcd itself wrote the trailers at `head`: a `done` generation of the item's claim,
 * pushed in the one fenced push that moved main to `head`, names `head` as landed by `runId`
 * (strategy-git.ts, batch-settle.ts). Anyone's own commit may carry `Abcd-Run:` lines, and the
 * rebase strategy lands its message as written, but only a lane's landing sets `landed.run`.
 * Fails open: a claim history this clone cannot read proves nothing.
 */
async function landedByRun(git: Git, o: { snap: Snapshot; item: ItemKey; head: string; runId: string }): Promise<boolean> {
  const ref = claimRef(o.item);
  const now = o.snap.claims.get(ref);
  if (!now) return false;
  const names = (c: Claim) => c.state === 'done' && c.landed?.tip === o.head && c.landed.run === o.runId;
  if (names(now.claim)) return true;
  const list = await git.history.tryRevList({ revs: [now.tip], firstParent: true, maxCount: MAX_CLAIM_GENERATIONS_SEARCHED });
  if (!list.ok) return false;
  const oids = list.value.split('\n').filter(Boolean).slice(1);
  if (!oids.length) return false;
  const blobs = await git.objects.readObjects(oids.map((c) => `${c}:${RECORD_FILE}`));
  if (!blobs.ok) return false;
  return blobs.value
    .flatMap((o) => (o ? [o.content] : []))
    .some((blob) => {
      try {
        return names(decodeClaim(ref, blob));
      } catch (e) {
        // A claim generation that does not decode names no one.
        return unlessRefusal(false)(e);
      }
    });
}

/**
 * The items with a follow-up request a lane should answer (canonical keys): a proven
 * requester's pending slot whose consumption main does not prove, and open steer requests that
 * are amendments (context alone starts no run). Slots main proves answered are removed, best
 * effort, with a lease on the tip read: a newer request replaced it if the lease fails, and that
 * one is work. A receipt record alone removes nothing.
 */
export async function followUpItems(repo: Repo, snap: Snapshot, o: { mainTip: string }): Promise<Set<string>> {
  const out = new Set<string>();
  const answered: PendingEntry[] = [];
  for (const p of snap.pending.values()) {
    if (!acceptsRequest({ tip: p.tip, stated: p.request.requester }, repo.me, snap)) continue;
    const key = itemKeyOf(p.item);
    const req = { kind: 'pending' as const, id: p.tip };
    if (key && (await consumptionProven(repo.git, { snap, mainTip: o.mainTip, item: key, req }))) answered.push(p);
    else out.add(p.item);
  }
  for (const s of snap.steers.values()) {
    if (snap.requestTrust?.delivered?.has(s.tip)) continue;
    if (s.request.item === s.item && judgeRequest(snap, { tip: s.tip, stated: s.request.author }, { lane: repo.me }) === 'amendment')
      out.add(s.item);
  }
  if (answered.length) {
    try {
      await repo.store.push(
        answered.map((p) => ({ ref: p.ref, newOid: null, lease: p.tip })),
        { atomic: false },
      );
    } catch (e) {
      // The remote went away: the covered slot is skipped again next time.
      unlessRefusal(undefined)(e);
    }
  }
  return out;
}

function itemKeyOf(key: string): ItemKey | undefined {
  const [source, kind, id] = key.split(':');
  return source && kind && id ? { source, kind, id } : undefined;
}
