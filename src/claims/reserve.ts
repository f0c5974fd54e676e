// `abcd reserve`: take a claim on an item, waiting (to a deadline) while another holds it.
import { expiresAt, type Claim } from '../records/claim.js';
import { formatHolder, sameSession } from '../records/holder.js';
import { shortItem } from '../records/item.js';
import { claimRef, SETTINGS_REF } from '../records/refs.js';
import { CapReached, DeadlineReached, Held, Landed, TakeoverTooSoon } from '../core/refusals.js';
import { formatDuration, formatInstant } from '../core/duration.js';
import { isPrunable, liveReservations, standing, type ClaimStanding } from './rules.js';
import { observeClock, refuseSkewed, type ClockView } from '../repo/clock-view.js';
import { pruneBestEffort } from './prune.js';
import { pushClaim, refusePush } from './write.js';
import { withNetworkDeadline, type Repo } from '../repo/repo.js';
import { readSnapshot, type ClaimEntry, type Snapshot } from '../repo/snapshot.js';
import { reserveClaim } from './reserve-claim.js';
import { reserveFromCache } from './reserve-fast.js';
import type { ReserveInput, ReserveResult } from './reserve-types.js';

export type { ReserveInput, ReserveResult } from './reserve-types.js';

// How often a waiting reserve re-reads the remote (one round trip each).
const WAIT_POLL_MS = 1000;
// Lost push races in a row before giving up; each loss means someone else just wrote.
const MAX_LOST_RACES = 8;

/** Takes the claim on an item, waiting up to waitMs for a holder to release or expire. */
export async function reserve(opened: Repo, input: ReserveInput): Promise<ReserveResult> {
  const { clock } = opened.deps;
  const item = shortItem(input.item);
  const ref = claimRef(input.item);
  const started = clock.now();
  const deadline = started + input.waitMs;
  // Without a wait there is no deadline to shorten git's timeouts toward: give them full time.
  const repo = input.waitMs > 0 ? withNetworkDeadline(opened, deadline, started) : opened;
  // An item the cache shows free: one push, no fetch, when the remote agrees (ADR 0039).
  const quick = await reserveFromCache(repo, input);
  if (quick) return quick;
  let waited = false;
  for (let lost = 0; ;) {
    const snap = await readSnapshot(repo);
    for (const r of [ref, SETTINGS_REF]) {
      const refused = snap.refused.get(r);
      if (refused) throw refused.refusal;
    }
    const entry = snap.claims.get(ref);
    if (entry?.claim.state === 'done' && !input.reopen) throw refuseLanded(item, ref, entry);
    const view = await observeClock(repo, snap);
    const now = clock.now();
    const seen = await watch(repo, entry, now);
    const st = standing(entry, repo.me, now, snap.settings, seen, view);
    if (st.kind === 'clock-unsafe') throw refuseUnsafeClock(st, item, ref);
    if (st.kind === 'free' || st.kind === 'mine' || st.kind === 'takeable') {
      if (st.kind !== 'mine') checkCap(repo, snap, { ref, now, view });
      const lease = st.kind === 'takeable' ? st.entry.tip : st.lease;
      const gen = st.kind === 'takeable' ? st.entry.claim.gen + 1 : st.gen;
      const own = st.kind === 'mine' && entry ? entry.claim : undefined;
      const claim = reserveClaim({
        me: repo.me,
        item: input.item,
        entry,
        gen,
        now,
        ttl: input.ttlMs ?? own?.ttl ?? snap.settings.defaultTtl,
        since: own ? (own.since ?? own.at) : now,
        note: input.note,
        // Reserving what this session holds renews it: keep what push recorded, and the note.
        ...(own ? { kept: pick(own) } : {}),
      });
      const r = await pushClaim(repo, { ref, lease, claim, message: `reserve ${claim.item} (generation ${gen})` });
      if (r.ok) {
        await repo.held.remember(ref, r.tip);
        await pruneIfMany(repo, snap, now, view);
        // Only time spent waiting on a holder counts: a reserve that took the item at once waited 0.
        return heldResult(repo, { item, ref, tip: r.tip, gen, claim, st, entry, waitedMs: waited ? clock.now() - started : 0 });
      }
      if (!r.claimMoved) throw refusePush(item, ref, lease, r);
      if (++lost > MAX_LOST_RACES && clock.now() >= deadline) throw refuseBusy(item, ref, st, started, clock.now(), input.waitMs);
      continue; // someone else wrote the claim first: read again and judge the new holder
    }
    const t = clock.now();
    if (t >= deadline) throw refuseBusy(item, ref, st, started, t, input.waitMs);
    const wakeAt = st.kind === 'held' ? st.expiresAt + snap.settings.takeoverDelay : st.takeableAt;
    waited = true;
    repo.deps.progress?.(waitingLine(st, item, t, deadline));
    await clock.sleep(Math.max(10, Math.min(jitter(WAIT_POLL_MS), wakeAt - t, deadline - t)));
  }
}

type Judged = ClaimStanding;

/** A holder's claim whose expiry this computer's clock cannot judge. */
function refuseUnsafeClock(st: Extract<Judged, { kind: 'clock-unsafe' }>, item: string, ref: string) {
  const c = st.entry.claim;
  return refuseSkewed(st.bracket, `judge whether ${item}'s claim by ${formatHolder(c.holder)} expired`, {
    item,
    ref,
    holder: formatHolder(c.holder),
    gen: c.gen,
  });
}

/** What a reserve that took or renewed the claim answers. */
function heldResult(
  repo: Repo,
  o: {
    item: string;
    ref: string;
    tip: string;
    gen: number;
    claim: Claim;
    st: Extract<Judged, { kind: 'free' | 'mine' | 'takeable' }>;
    entry: ClaimEntry | undefined;
    waitedMs: number;
  },
): ReserveResult {
  const { item, ref, tip, gen, claim, st, entry, waitedMs } = o;
  return {
    item,
    ref,
    tip,
    gen,
    holder: formatHolder(repo.me),
    expiresAt: expiresAt(claim),
    ttlMs: claim.ttl,
    state: 'held',
    renewed: st.kind === 'mine',
    reopened: entry?.claim.state === 'done',
    ...(st.kind === 'takeable' ? { tookOverFrom: formatHolder(st.entry.claim.holder) } : {}),
    waitedMs,
  };
}

/** The progress line of a reserve that waits for a holder. */
function waitingLine(st: Extract<Judged, { kind: 'held' | 'expired' }>, item: string, t: number, deadline: number): string {
  return st.kind === 'held'
    ? `waiting for ${item}, held by ${formatHolder(st.entry.claim.holder)} (expires in ${formatDuration(st.expiresAt - t)}), ${formatDuration(deadline - t)} left`
    : `waiting to take over ${item} from ${formatHolder(st.entry.claim.holder)} (takeable in ${formatDuration(st.takeableAt - t)}), ${formatDuration(deadline - t)} left`;
}

// A reserve prunes only when this many records are due: the extra round trip is then worth it,
// and a remote where nobody runs status still stays bounded.
const PRUNE_WHEN_DUE = 10;

async function pruneIfMany(repo: Repo, snap: Snapshot, now: number, view: ClockView): Promise<void> {
  let due = 0;
  for (const e of snap.claims.values()) if (isPrunable(e, now, snap.settings)) due++;
  if (due >= PRUNE_WHEN_DUE) await pruneBestEffort(repo, snap, view);
}

/** Records this clone's sighting of another session's claim tip; returns when it was first seen. */
async function watch(repo: Repo, entry: ClaimEntry | undefined, now: number): Promise<number | undefined> {
  if (!entry || entry.claim.state !== 'held' || sameSession(entry.claim.holder, repo.me)) return undefined;
  return repo.sightings.see(entry.ref, entry.tip, now);
}

function refuseLanded(item: string, ref: string, entry: ClaimEntry): Landed {
  const c = entry.claim;
  const where = c.landed ? ` on ${c.landed.main} at ${c.landed.tip.slice(0, 12)}` : '';
  return new Landed(
    `${item} has landed${where} (${formatInstant(c.at)}, by ${formatHolder(c.holder)}): its work is done. ` +
      `Pick another item; to work on it again anyway, run abcd reserve ${item} --reopen.`,
    {
      item,
      ref,
      state: 'done',
      landedAt: isoInstant(c.at),
      main: c.landed?.main ?? null,
      commit: c.landed?.tip ?? null,
      holder: formatHolder(c.holder),
    },
  );
}

function checkCap(repo: Repo, snap: Snapshot, o: { ref: string; now: number; view: ClockView }): void {
  const mine = liveReservations(snap.claims.values(), { person: repo.me.person, exceptRef: o.ref, now: o.now, clock: o.view });
  const cap = snap.settings.reservationCap;
  if (mine.length >= cap) {
    throw new CapReached(
      `${repo.me.person} already holds ${mine.length} live reservations, the cap is ${cap}: ` +
        'release one you hold (abcd release <item>), or ask the person who owns the repository whether the cap ' +
        'should change. Settings are theirs alone: do not change them yourself.',
      { person: repo.me.person, cap, held: mine.map((e) => e.item) },
    );
  }
}

function refuseBusy(item: string, ref: string, st: ClaimStanding, started: number, now: number, waitMs: number) {
  if (st.kind !== 'held' && st.kind !== 'expired') {
    return new Held(`${item} kept changing hands while abcd tried to take it; run abcd status and try again.`, { item, ref });
  }
  const c = st.entry.claim;
  const holder = formatHolder(c.holder);
  const claimData = { item, ref, holder, gen: c.gen, claimTip: st.entry.tip, expiresAt: isoInstant(expiresAt(c)) };
  if (waitMs > 0) {
    return new DeadlineReached(
      `waited ${formatDuration(now - started)} for ${item}, held by ${holder} (generation ${c.gen}, ` +
        `expires ${formatInstant(expiresAt(c))}); the --wait deadline of ${formatDuration(waitMs)} passed. ` +
        'Try another item, or wait longer.',
      { waitedOn: claimData, waitedMs: now - started, waitMs },
    );
  }
  if (st.kind === 'held') {
    return new Held(
      `${item} is held by ${holder} (generation ${c.gen}) until ${formatInstant(st.expiresAt)} ` +
        `(in ${formatDuration(st.expiresAt - now)})${c.note ? `, note: ${JSON.stringify(c.note)}` : ''}. ` +
        'Pick another item, or wait with --wait <duration>.',
      { ...claimData, expiresInMs: st.expiresAt - now },
    );
  }
  return new TakeoverTooSoon(
    `${item}'s claim by ${holder} looks expired on this clock; it may be taken over from ` +
      `${formatInstant(st.takeableAt)} (in ${formatDuration(st.takeableAt - now)}), once this clone has watched it ` +
      "unchanged long enough: the takeover delay when it has measured its clock against the holder's, " +
      'otherwise the ttl plus the delay. Run again then, or use --wait.',
    { ...claimData, takeableAt: isoInstant(st.takeableAt), takeableInMs: st.takeableAt - now },
  );
}

/** Instants in refusal data: the one ISO format of every --json answer (ADR 0030). */
function isoInstant(ms: number): string {
  return new Date(ms).toISOString();
}

function jitter(ms: number): number {
  return ms * (0.8 + Math.random() * 0.4);
}

function pick(c: Claim): Partial<Claim> {
  return { ...(c.note ? { note: c.note } : {}), ...(c.branch ? { branch: c.branch } : {}), ...(c.head ? { head: c.head } : {}) };
}
