// What `abcd status` shows of lanes: running runs (with their items and for how long), recent
// results, and pending requests; and the pruning of old ones (best effort, its own push).
import { provenAuthor } from '../steering/requesters.js';
import { formatHolder } from '../records/holder.js';
import type { RefUpdate } from '../records/store.js';
import type { Repo } from '../repo/repo.js';
import type { Snapshot } from '../repo/snapshot.js';

export interface LaneView {
  runId: string;
  verb: 'build' | 'drain';
  holder: string;
  lifecycle: string;
  lanes: number;
  /** running: rewritten within its ttl; lost: a running record its writer stopped rewriting. */
  state: 'running' | 'finished' | 'lost';
  startedAt: number;
  at: number;
  current: Array<{ item: string; forMs: number }>;
  landed: number;
  notLanded: number;
  cycles: Array<{ item: string; outcome: string; reason?: string; landed?: string }>;
  deferred: Array<{ item: string; why: string }>;
  usage: number;
  end?: string;
}

export interface PendingView {
  item: string;
  requester: string;
  /** The principal the request's signature proves, or "unverified": the requester above is only stated. */
  provenBy: string;
  at: number;
  note?: string;
  coalesced: number;
}

// Results shown in status: the newest ones.
const RECENT_RESULTS = 10;
// Lane results and unanswered requests are pruned after this long (a lost run: after its ttl plus this).
const LANE_RECORD_RETENTION_MS = 7 * 86_400_000;

export function laneViews(snap: Snapshot, now: number): { lanes: LaneView[]; pending: PendingView[] } {
  const all = [...snap.lanes.values()].map(({ result: r }) => {
    const state: LaneView['state'] = r.state === 'finished' ? 'finished' : now > r.at + r.ttl ? 'lost' : 'running';
    return {
      runId: r.runId,
      verb: r.verb,
      holder: formatHolder(r.holder),
      lifecycle: r.lifecycle,
      lanes: r.lanes,
      state,
      startedAt: r.startedAt,
      at: r.at,
      current: state === 'running' ? r.current.map((c) => ({ item: c.item, forMs: now - c.since })) : [],
      landed: r.cycles.filter((c) => c.outcome === 'landed').length,
      notLanded: r.cycles.filter((c) => c.outcome !== 'landed').length,
      cycles: r.cycles.map((c) => ({
        item: c.item,
        outcome: c.outcome,
        ...(c.reason ? { reason: c.reason } : {}),
        ...(c.landed ? { landed: c.landed } : {}),
      })),
      deferred: r.deferred,
      usage: r.usage,
      ...(r.end ? { end: r.end } : {}),
    };
  });
  const running = all.filter((l) => l.state === 'running');
  const recent = all
    .filter((l) => l.state !== 'running')
    .sort((a, b) => b.at - a.at)
    .slice(0, RECENT_RESULTS);
  const pending = [...snap.pending.values()].map((p) => ({
    item: p.item,
    requester: formatHolder(p.request.requester),
    provenBy: provenAuthor(snap, p.tip),
    at: p.request.at,
    coalesced: p.request.coalesced,
    ...(p.request.note ? { note: p.request.note } : {}),
  }));
  return { lanes: [...running.sort((a, b) => a.startedAt - b.startedAt), ...recent], pending };
}

/** Deletes old lane results and stale requests, each leased on the tip read. Returns the refs deleted. */
export async function pruneLaneRecords(repo: Repo, snap: Snapshot): Promise<Set<string>> {
  const now = repo.deps.clock.now();
  const doomed: RefUpdate[] = [];
  for (const e of snap.lanes.values()) {
    const r = e.result;
    const until = r.state === 'finished' ? r.at + LANE_RECORD_RETENTION_MS : r.at + r.ttl + LANE_RECORD_RETENTION_MS;
    if (now > until) doomed.push({ ref: e.ref, newOid: null, lease: e.tip });
  }
  for (const e of snap.pending.values()) if (now > e.request.at + e.request.ttl) doomed.push({ ref: e.ref, newOid: null, lease: e.tip });
  if (doomed.length === 0) return new Set();
  try {
    const r = await repo.store.push(doomed, { atomic: false });
    return new Set((r.ok ? doomed : doomed.filter((u) => r.remoteTips.get(u.ref) === null)).map((u) => u.ref));
  } catch {
    return new Set();
  }
}
