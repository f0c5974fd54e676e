// What `abcd status` shows of steering: open steer requests (written, not yet delivered by a
// cycle that landed), and each item's latest receipt (which run absorbed which requests, the
// head it settled on); and their pruning (best effort, its own push).
import { isPastExpiry } from '../records/timed.js';
import { formatHolder } from '../records/holder.js';
import { provenAuthor } from './requesters.js';
import { itemOfRef } from '../records/refs.js';
import type { RefUpdate } from '../records/store.js';
import { sanitizeLine } from '../core/sanitize.js';
import type { Repo } from '../repo/repo.js';
import type { Snapshot } from '../repo/snapshot.js';
import { unlessRefusal } from '../core/best-effort.js';

export interface SteerView {
  item: string;
  id: string;
  author: string;
  /** The principal the request's signature proves, or "unverified": the author above is only stated. */
  provenBy: string;
  at: number;
  /** The first line of its text, cut short (the whole text goes only into an envelope). */
  text: string;
  /** The session whose claim holds the item now: the lane that will get it on its next poll. */
  heldBy?: string;
}

export interface ReceiptView {
  item: string;
  runId: string;
  holder: string;
  at: number;
  head: string;
  /** What the run absorbed: "steer <id>", "pending <tip>", "item <blob>". */
  consumed: string[];
}

// How much of a steer's text status shows.
const SHOWN_TEXT_CHARS = 80;

export function steerViews(snap: Snapshot): { steers: SteerView[]; receipts: ReceiptView[] } {
  const holders = new Map<string, string>();
  for (const c of snap.claims.values()) if (c.claim.state === 'held') holders.set(c.claim.item, formatHolder(c.claim.holder));
  const steers = [...snap.steers.values()]
    .map((s) => ({
      item: itemOfRef(s.ref) ?? s.item,
      id: s.request.id,
      author: formatHolder(s.request.author),
      provenBy: provenAuthor(snap, s.tip),
      at: s.request.at,
      text: sanitizeLine(s.request.text.split('\n')[0] ?? '', SHOWN_TEXT_CHARS),
      ...(holders.has(s.item) ? { heldBy: holders.get(s.item)! } : {}),
    }))
    .sort((a, b) => a.at - b.at || a.id.localeCompare(b.id));
  const receipts = [...snap.receipts.values()]
    .map(({ ref, receipt: r }) => ({
      item: itemOfRef(ref) ?? r.item,
      runId: r.runId,
      holder: formatHolder(r.holder),
      at: r.at,
      head: r.head,
      consumed: r.consumed.map((c) => `${c.kind} ${c.kind === 'steer' ? c.id : c.id.slice(0, 12)}`),
    }))
    .sort((a, b) => b.at - a.at);
  return { steers, receipts };
}

/**
 * Deletes steer requests past their ttl and receipts older than the done retention, each
 * leased on the tip read, never for an item a claim holds now (its lane may be delivering
 * or landing them). Returns the refs deleted.
 */
export async function pruneSteerRecords(repo: Repo, snap: Snapshot): Promise<Set<string>> {
  const now = repo.deps.clock.now();
  const held = new Set([...snap.claims.values()].filter((c) => c.claim.state === 'held').map((c) => c.claim.item));
  const doomed: RefUpdate[] = [];
  for (const s of snap.steers.values()) {
    if (!held.has(s.item) && isPastExpiry(s.request, now)) doomed.push({ ref: s.ref, newOid: null, lease: s.tip });
  }
  for (const r of snap.receipts.values()) {
    if (!held.has(r.item) && now > r.receipt.at + snap.settings.doneRetention) doomed.push({ ref: r.ref, newOid: null, lease: r.tip });
  }
  if (doomed.length === 0) return new Set();
  try {
    const r = await repo.store.push(doomed, { atomic: false });
    return new Set((r.ok ? doomed : doomed.filter((u) => r.remoteTips.get(u.ref) === null)).map((u) => u.ref));
  } catch (e) {
    return unlessRefusal(new Set<string>())(e); // the remote went away: pruning waits for the next reader
  }
}
