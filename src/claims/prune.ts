// Best-effort pruning of released and long-expired records, a bounded push at a time.
import type { RefUpdate } from '../records/store.js';
import { isDue, isLapsed, isPrunable } from './rules.js';
import { observeClock, type ClockView } from '../repo/clock-view.js';
import { SETTINGS_REF } from '../records/refs.js';
import { RemoteUnavailable } from '../core/refusals.js';
import type { Repo } from '../repo/repo.js';
import type { Snapshot } from '../repo/snapshot.js';

// One prune push deletes at most this many records; the next verb continues.
const MAX_PRUNE_PER_PUSH = 200;

/**
 * Deletes released and long-expired claim records, each with a lease on the tip read, in
 * a push of its own (never inside a reserve's). Best-effort: a lost lease means someone
 * wrote the record meanwhile, which is fine, and an unreachable remote waits for the next
 * reader; anything else is a bug and is thrown. Returns the refs it deleted.
 */
export async function pruneBestEffort(repo: Repo, snap: Snapshot, known?: ClockView): Promise<Set<string>> {
  // Retention comes from the settings record: never prune on defaults standing in for one
  // this abcd could not read.
  if (snap.refused.has(SETTINGS_REF)) return new Set();
  const clock = known ?? (await observeClock(repo, snap));
  const now = repo.deps.clock.now();
  const doomed: RefUpdate[] = [];
  for (const e of snap.claims.values()) {
    if (doomed.length >= MAX_PRUNE_PER_PUSH) break;
    // Cheap filter first; a record that looks due by this clock alone is judged with the clock
    // measured and this clone's own sighting, so a wrong clock deletes nothing live.
    if (!isPrunable(e, now, snap.settings) && e.claim.state !== 'done') continue;
    const seen = e.claim.state === 'released' ? undefined : await repo.sightings.see(e.ref, e.tip, now);
    if (!isDue({ entry: e, me: repo.me, now, settings: snap.settings, firstSeenAt: seen, clock })) continue;
    doomed.push({ ref: e.ref, newOid: null, lease: e.tip });
  }
  // Announcements expire on their own, judged like a lapsed claim on the clock as measured.
  for (const a of clock.unsafe ? [] : snap.announcements.values()) {
    if (doomed.length >= MAX_PRUNE_PER_PUSH) break;
    if (isLapsed(a.record, now, clock, snap.settings)) doomed.push({ ref: a.ref, newOid: null, lease: a.tip });
  }
  if (doomed.length === 0) return new Set();
  try {
    const r = await repo.store.push(doomed, { atomic: false });
    const gone = r.ok ? doomed : doomed.filter((u) => r.remoteTips.get(u.ref) === null);
    return new Set(gone.map((u) => u.ref));
  } catch (e) {
    if (e instanceof RemoteUnavailable) return new Set(); // pruning waits for the next reader
    throw e;
  }
}
