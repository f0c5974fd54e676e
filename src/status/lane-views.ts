// What `abcd status` shows of lanes: running runs (with their items and for how long), recent
// results, and pending requests; and the pruning of old ones (best effort, its own push).
import { unlessRefusal } from '../core/best-effort.js';
import { isPastExpiry } from '../records/timed.js';
import { provenAuthor } from '../steering/requesters.js';
import { formatHolder } from '../records/holder.js';
import type { LaneResultRecord } from '../records/lane-result.js';
import type { RefUpdate } from '../records/store.js';
import type { Repo } from '../repo/repo.js';
import type { Snapshot } from '../repo/snapshot.js';

export interface LaneView {
  runId: string;
  verb: 'build' | 'drain';
  holder: string;
  lifecycle: string;
  lanes: number;
  /** running: rewritten within its ttl and not known dead; lost: a running record whose writer is gone. */
  state: 'running' | 'finished' | 'lost';
  /** Why a run counts as lost, and when its record was last rewritten (its writer's clock). */
  lost?: { why: LostWhy; lastSeenAt: number };
  startedAt: number;
  at: number;
  /** Each item a lane works on now: for how long, its phase and since when, and its agent's usage as of that phase. */
  current: Array<{ item: string; forMs: number; phase?: string; phaseForMs?: number; usage?: number; costUsd?: number }>;
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

/**
 * process-gone: the record names a process in this reader's own pid space, and that process no
 * longer runs. not-renewed: its writer stopped rewriting it for longer than its ttl (the only
 * sign a reader on another computer has).
 */
export type LostWhy = 'process-gone' | 'not-renewed';

/** Whether a run's writing process, as its record names it, is known gone here (undefined: cannot tell). */
export type ProcessGone = (p: NonNullable<LaneResultRecord['process']>) => boolean | undefined;

/** A running record's standing as a reader with clock `now` and `gone` judges it (ADR 0063). */
export function runStanding(r: LaneResultRecord, now: number, gone: ProcessGone): Pick<LaneView, 'state' | 'lost'> {
  if (r.state === 'finished') return { state: 'finished' };
  if (r.process && gone(r.process) === true) return { state: 'lost', lost: { why: 'process-gone', lastSeenAt: r.at } };
  if (isPastExpiry(r, now)) return { state: 'lost', lost: { why: 'not-renewed', lastSeenAt: r.at } };
  return { state: 'running' };
}

export function laneViews(snap: Snapshot, now: number, gone: ProcessGone): { lanes: LaneView[]; pending: PendingView[] } {
  const all = [...snap.lanes.values()].map(({ result: r }): LaneView => {
    const standing = runStanding(r, now, gone);
    const state = standing.state;
    return {
      runId: r.runId,
      verb: r.verb,
      holder: formatHolder(r.holder),
      lifecycle: r.lifecycle,
      lanes: r.lanes,
      ...standing,
      startedAt: r.startedAt,
      at: r.at,
      current: state === 'running' ? r.current.map((c) => currentView(c, now)) : [],
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

function currentView(c: LaneResultRecord['current'][number], now: number): LaneView['current'][number] {
  return {
    item: c.item,
    forMs: now - c.since,
    ...(c.phase ? { phase: c.phase } : {}),
    ...(c.phaseAt !== undefined ? { phaseForMs: Math.max(0, now - c.phaseAt) } : {}),
    ...(c.usage !== undefined ? { usage: c.usage } : {}),
    ...(c.costUsd !== undefined ? { costUsd: c.costUsd } : {}),
  };
}

/** Deletes old lane results and stale requests, each leased on the tip read. Returns the refs deleted. */
export async function pruneLaneRecords(repo: Repo, snap: Snapshot): Promise<Set<string>> {
  const now = repo.deps.clock.now();
  const doomed: RefUpdate[] = [];
  for (const e of snap.lanes.values()) {
    const r = e.result;
    const due = r.state === 'finished' ? now >= r.at + LANE_RECORD_RETENTION_MS : isPastExpiry(r, now, LANE_RECORD_RETENTION_MS);
    if (due) doomed.push({ ref: e.ref, newOid: null, lease: e.tip });
  }
  for (const e of snap.pending.values()) if (isPastExpiry(e.request, now)) doomed.push({ ref: e.ref, newOid: null, lease: e.tip });
  if (doomed.length === 0) return new Set();
  // A push the remote refuses deletes nothing now; the next status tries again.
  const r = await repo.store.push(doomed, { atomic: false }).catch(unlessRefusal(undefined));
  if (r === undefined) return new Set();
  return new Set((r.ok ? doomed : doomed.filter((u) => r.remoteTips.get(u.ref) === null)).map((u) => u.ref));
}
