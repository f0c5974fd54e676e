// Reserving from the local record cache in one push, guarded by what the remote advertises.
import { join } from 'node:path';
import { expiresAt } from '../records/claim.js';
import { formatHolder } from '../records/holder.js';
import { shortItem } from '../records/item.js';
import { claimRef, RECORD_PREFIX, SETTINGS_REF } from '../records/refs.js';
import { makePushGuard } from '../git/push-guard.js';
import { liveReservations, standing } from './rules.js';
import { readClock } from '../repo/clock-view.js';
import { pushClaim } from './write.js';
import type { Repo } from '../repo/repo.js';
import { reserveClaim } from './reserve-claim.js';
import type { ReserveInput, ReserveResult } from './reserve-types.js';
import { readCachedSnapshot } from '../repo/snapshot.js';

const CLAIMS_PREFIX = `${RECORD_PREFIX}claims/`;

/**
 * Reserves an item this clone's cache shows free in ONE round trip: the push itself (ADR 0039).
 * What a fetch would have bought is checked against the push's own ref advertisement before
 * anything is sent: the item's claim by its lease, the settings ref exactly as cached, and the
 * cap by how many claim refs changed since the cache (each could be one more of this person's).
 * undefined: not decidable from the cache, or the remote differed; reserve reads and decides.
 */
export async function reserveFromCache(repo: Repo, input: ReserveInput): Promise<ReserveResult | undefined> {
  const { clock } = repo.deps;
  const ref = claimRef(input.item);
  const { snap, raws } = await readCachedSnapshot(repo);
  if (snap.refused.size > 0 || snap.unknown.length > 0 || snap.settingsIgnored) return undefined;
  const entry = snap.claims.get(ref);
  // A landed item is refused unless reopened: the ordinary path says so, from the remote's record.
  if (entry?.claim.state === 'done' && !input.reopen) return undefined;
  const now = clock.now();
  const st = standing(entry, repo.me, now, snap.settings, undefined);
  if (st.kind !== 'free') return undefined;
  // The clock as last measured (a local file): the same cap the ordinary path counts.
  const view = await readClock(repo);
  const mine = liveReservations(snap.claims.values(), { person: repo.me.person, exceptRef: ref, now, clock: view }).length;
  // At or next to the cap, the refusal (or its absence) needs the remote's own records.
  const slack = snap.settings.reservationCap - 1 - mine;
  if (slack < 0) return undefined;
  const claim = reserveClaim({
    me: repo.me,
    item: input.item,
    entry,
    gen: st.gen,
    now,
    ttl: input.ttlMs ?? snap.settings.defaultTtl,
    since: now,
    note: input.note,
  });
  const cached = new Map(raws.map((r) => [r.ref, r.tip]));
  const guard = await makePushGuard(join(repo.commonDir, 'abcd'), {
    cached,
    exact: [SETTINGS_REF, ref],
    prefix: CLAIMS_PREFIX,
    slack,
    leased: [],
  });
  if (!guard) return undefined;
  let r;
  try {
    r = await pushClaim(repo, { ref, lease: st.lease, claim, message: `reserve ${claim.item} (generation ${st.gen})`, guard });
  } finally {
    await guard.cleanup();
  }
  // Declined, fenced or refused: the ordinary path reads the remote and judges again.
  if (!r.ok) return undefined;
  // No pruning and no clock observation here: both judge times against a fresh read (the
  // clock log records what was read when), and this path read nothing. The next read does both.
  await repo.held.remember(ref, r.tip);
  return {
    item: shortItem(input.item),
    ref,
    tip: r.tip,
    gen: st.gen,
    holder: formatHolder(repo.me),
    expiresAt: expiresAt(claim),
    ttlMs: claim.ttl,
    state: 'held',
    renewed: false,
    reopened: entry?.claim.state === 'done',
    waitedMs: 0,
  };
}
