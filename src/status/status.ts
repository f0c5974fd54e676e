// `abcd status`: the views of claims, queue, lanes and announcements.
import { expiresAt, isPastExpiry } from '../records/timed.js';
import { compareNatural } from '../core/natural-order.js';
import { formatHolder, sameSession } from '../records/holder.js';
import type { Settings } from '../records/settings.js';
import { isLive, standing } from '../claims/rules.js';
import { entryState, queueOrder, skippedOf, type SkippedEntry } from '../land/queue/queue-order.js';
import { pruneBestEffort } from '../claims/prune.js';
import { CLOCK_SKEW_LIMIT_MS, readClock } from '../repo/clock-view.js';
import type { Repo } from '../repo/repo.js';
import type { SettingsTrust } from '../repo/settings-trust/trust.js';
import { readSnapshot, type QueueEntry, type Snapshot } from '../repo/snapshot.js';
import { processGoneIn } from '../machine/gate/process.js';
import { laneViews, pruneLaneRecords, type LaneView, type PendingView } from './lane-views.js';
import { failureViews, type FailureView } from './failures.js';
import { runningLanes, type RunningLaneView } from './running.js';
import { pruneSteerRecords, steerViews, type ReceiptView, type SteerView } from '../steering/views.js';

export interface ClaimView {
  item: string;
  ref: string;
  state: 'held' | 'released' | 'done';
  holder: string;
  gen: number;
  tip: string;
  at: number;
  ageMs: number;
  /** When the holder took the claim (its first generation by this holder), else its last write. */
  takenAt: number;
  ttlMs: number;
  expiresAt: number;
  expiresInMs: number;
  /** Held but past its expiry: its holder stopped renewing. */
  stale: boolean;
  /** When this clone may take it over (stale claims only). */
  takeableAt?: number;
  mine: boolean;
  note?: string;
  branch?: string;
  head?: string;
  landed?: { main: string; tip: string; flaky?: { check: string; attempts: number }[] };
  /** A released claim whose lane work changes protected paths and waits for the person. */
  review?: { run: string; branch: string; head: string; paths: string[] };
}

export interface RefusedView {
  ref: string;
  code: string;
  exit: number;
  message: string;
  data: Record<string, unknown>;
}

export interface QueueView {
  position: number;
  item: string;
  holder: string;
  branch: string;
  head: string;
  main: string;
  since: number;
  /** high or low; absent for normal. */
  priority?: 'high' | 'low';
  /** False when the holder's claim lapsed: the entry is skipped, not waited on. */
  alive: boolean;
  /** Set when the entry's claim cannot be read: lands skip it, never wait on it or delete it. */
  skipped?: SkippedEntry;
  /** In a batch its head announced (land.batch): the head's item, and whether this entry is the head. */
  batch?: { of: string; head: boolean };
  /** A batch's head refused it: its item, and why (the failed check, or a conflict). */
  refused?: { by: string; reason: string };
}

export interface AnnouncementView {
  session: string;
  ref: string;
  state: string;
  item: string | null;
  text: string;
  at: number;
  expiresAt: number;
  mine: boolean;
}

export interface StatusData {
  remote: string;
  readAt: number;
  session: string;
  claims: ClaimView[];
  queue: QueueView[];
  /** Live announcements, newest first (expired ones are not shown, and pruned later). */
  announcements: AnnouncementView[];
  settings: Settings;
  /** Whether settings count only when the person signed them (unprotected without a list). */
  settingsTrust: SettingsTrust;
  /** Whether steer and build requests are proven by signature (the person keeps an allowed-signers list). */
  requestTrust: { protected: boolean; signers: string };
  refused: RefusedView[];
  /** Refs under abcd/ of a kind this abcd does not know (a newer abcd's, or stray): left alone. */
  unknown: string[];
  pruned: number;
  /** Lane runs: running ones first, then recent results. */
  lanes: LaneView[];
  /** What failed or got stuck in the last day and still waits for a person, one per item, newest first. */
  failures: FailureView[];
  /** The lanes at work now, one per item. */
  running: RunningLaneView[];
  /** Pending follow-up requests, one per item. */
  pending: PendingView[];
  /** Steer requests not yet delivered by a cycle that landed. */
  steers: SteerView[];
  /** Each item's latest receipt: which run absorbed which requests. */
  receipts: ReceiptView[];
  /** Set when this clock disagrees with a writer's past the bound: takeovers and pruning refused. */
  clockSkew?: { writer: string; minMs: number; maxMs: number; limitMs: number };
}

/**
 * Everyone's state in one round trip, after the coordination pass (sightings, pruning). A
 * caller that read the snapshot itself (with main, for the items) passes it: still one read.
 */
export async function status(repo: Repo, snapshot?: Snapshot): Promise<StatusData> {
  const read = snapshot ?? (await readSnapshot(repo));
  const now = repo.deps.clock.now();
  // Pruned first, so the view shows what the remote holds now.
  const pruned = await pruneBestEffort(repo, read);
  // The clock as this read taught it (pruning observed it): every expiry below is judged on it.
  const view = await readClock(repo);
  const skew = view.unsafe;
  // Lane results and requests are pruned by age: never on a clock known to be wrong.
  for (const ref of skew ? [] : await pruneLaneRecords(repo, read)) pruned.add(ref);
  for (const ref of skew ? [] : await pruneSteerRecords(repo, read)) pruned.add(ref);
  const kept = <V>(m: ReadonlyMap<string, V>) => new Map([...m].filter(([ref]) => !pruned.has(ref)));
  const snap: Snapshot = {
    ...read,
    lanes: kept(read.lanes),
    pending: kept(read.pending),
    steers: kept(read.steers),
    receipts: kept(read.receipts),
  };
  const claims = await claimViews(repo, snap, { pruned, now, view });
  const refused = [...snap.refused.values(), ...(snap.settingsIgnored ? [snap.settingsIgnored] : [])].map((r) => ({
    ref: r.ref,
    code: r.refusal.code,
    exit: r.refusal.exit,
    message: r.refusal.message,
    data: r.refusal.data,
  }));
  const queue = queueViews(snap, now, view);
  const announcements = announcementViews(repo, snap, pruned, now);
  return {
    remote: repo.store.remote,
    readAt: snap.readAt,
    session: formatHolder(repo.me),
    claims,
    queue,
    announcements,
    settings: snap.settings,
    settingsTrust: snap.settingsTrust,
    requestTrust: { protected: snap.requestTrust?.protected ?? false, signers: snap.requestTrust?.signers ?? '' },
    refused,
    unknown: [...snap.unknown],
    pruned: pruned.size,
    ...lanesNow(snap, now, claims),
    ...steerViews(snap),
    ...(skew ? { clockSkew: { writer: skew.writer, minMs: skew.lo, maxMs: skew.hi, limitMs: CLOCK_SKEW_LIMIT_MS } } : {}),
  };
}

/** Every claim not pruned, as status shows it, by item in natural order; a stale one seen by this clone. */
async function claimViews(
  repo: Repo,
  snap: Snapshot,
  o: { pruned: ReadonlySet<string>; now: number; view: Awaited<ReturnType<typeof readClock>> },
): Promise<ClaimView[]> {
  const { pruned, now, view } = o;
  const claims: ClaimView[] = [];
  for (const e of snap.claims.values()) {
    if (pruned.has(e.ref)) continue;
    const c = e.claim;
    const exp = expiresAt(c);
    const mine = sameSession(c.holder, repo.me);
    const stale = c.state === 'held' && !isLive(c, now, view);
    const seen = stale && !mine ? await repo.sightings.see(e.ref, e.tip, now) : undefined;
    const st = stale && !mine ? standing(e, repo.me, now, snap.settings, seen, view) : undefined;
    claims.push({
      item: e.item,
      ref: e.ref,
      state: c.state,
      holder: formatHolder(c.holder),
      gen: c.gen,
      tip: e.tip,
      at: c.at,
      ageMs: now - (c.since ?? c.at),
      takenAt: c.since ?? c.at,
      ttlMs: c.ttl,
      expiresAt: exp,
      expiresInMs: exp - now,
      stale,
      mine,
      ...(st?.kind === 'expired' ? { takeableAt: st.takeableAt } : st?.kind === 'takeable' ? { takeableAt: now } : {}),
      ...(c.note ? { note: c.note } : {}),
      ...(c.branch ? { branch: c.branch } : {}),
      ...(c.head ? { head: c.head } : {}),
      ...(c.landed ? { landed: c.landed } : {}),
      ...(c.state === 'released' && c.review
        ? { review: { run: c.review.run, branch: c.review.branch, head: c.review.head, paths: c.review.paths } }
        : {}),
    });
  }
  claims.sort((a, b) => compareNatural(a.item, b.item));
  return claims;
}

/** The land queue in its order, each entry alive or skipped, with its batch. */
function queueViews(snap: Snapshot, now: number, view: Awaited<ReturnType<typeof readClock>>): QueueView[] {
  const queue = queueOrder(snap.queue.values()).map((q, i) => ({
    position: i + 1,
    item: q.item,
    holder: formatHolder(q.entry.holder),
    branch: q.entry.branch,
    head: q.entry.head,
    main: q.entry.main,
    since: q.entry.at,
    ...(q.entry.priority ? { priority: q.entry.priority } : {}),
    alive: entryState(q, snap, now, view) === 'alive',
    ...(entryState(q, snap, now, view) === 'unreadable' ? { skipped: skippedOf(q, snap) } : {}),
    ...batchOf(q, snap),
  }));
  return queue;
}

/** The announcements not pruned nor expired, newest first. */
function announcementViews(repo: Repo, snap: Snapshot, pruned: ReadonlySet<string>, now: number) {
  const announcements = [...snap.announcements.values()]
    .filter((a) => !pruned.has(a.ref) && !isPastExpiry(a.record, now))
    .map((a) => ({
      session: formatHolder(a.record.holder),
      ref: a.ref,
      state: a.record.state,
      // Shown as the CLI takes it: a local item by its slug.
      item: a.record.item?.replace(/^local:item:/, '') ?? null,
      text: a.record.text,
      at: a.record.at,
      expiresAt: expiresAt(a.record),
      mine: sameSession(a.record.holder, repo.me),
    }))
    .sort((a, b) => b.at - a.at);
  return announcements;
}

/** The lane runs, the lanes at work now, and what failed, each judged on the same clock and process view. */
function lanesNow(snap: Snapshot, now: number, claims: readonly ClaimView[]) {
  const gone = (p: Parameters<typeof processGoneIn>[1] & { space: string }) => processGoneIn(p.space, p);
  const views = laneViews(snap, now, gone);
  const done = new Set(claims.filter((c) => c.state === 'done').map((c) => c.item));
  const failures = failureViews({ runs: [...snap.lanes.values()].map((e) => e.result), now, gone, done });
  return { ...views, failures, running: runningLanes(views.lanes) };
}

/** The batch an entry is in (named by a head at its current tip), or the verdict a head wrote in it. */
function batchOf(q: QueueEntry, snap: Snapshot): Pick<QueueView, 'batch' | 'refused'> {
  const v = q.entry.verdict;
  if (v) {
    const f = v.failure;
    return { refused: { by: v.by, reason: f.kind === 'check' ? `check "${f.check}" exited ${f.exitCode}` : 'conflict' } };
  }
  if (q.entry.batch) return { batch: { of: q.item, head: true } };
  for (const h of snap.queue.values()) {
    if (h.entry.batch?.members.some((m) => m.ref === q.ref && m.tip === q.tip)) return { batch: { of: h.item, head: false } };
  }
  return {};
}
