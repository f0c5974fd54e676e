import type { RefUpdate } from '../remote/record-store.js';
import { isPrunable, standing } from './claim-rules.js';
import { SETTINGS_REF } from '../records/refs.js';
import type { Repo } from './repo.js';
import type { Snapshot } from './snapshot.js';

// One prune push deletes at most this many records; the next verb continues.
const MAX_PRUNE_PER_PUSH = 200;

/**
 * Deletes released and long-expired claim records, each with a lease on the tip read, in
 * a push of its own (never inside a reserve's). Best-effort: a lost lease means someone
 * wrote the record meanwhile, which is fine. Returns the refs it deleted.
 */
export async function pruneBestEffort(repo: Repo, snap: Snapshot): Promise<Set<string>> {
  // Retention comes from the settings record: never prune on defaults standing in for one
  // this abcd could not read.
  if (snap.refused.has(SETTINGS_REF)) return new Set();
  const now = repo.deps.clock.now();
  const doomed: RefUpdate[] = [];
  for (const e of snap.claims.values()) {
    if (doomed.length >= MAX_PRUNE_PER_PUSH) break;
    if (!isPrunable(e, now, snap.settings)) continue;
    // A held claim is deleted only under the takeover rule too: this clone's own sighting
    // of the same tip, so a reader with a fast clock cannot delete live claims.
    if (e.claim.state === 'held') {
      const seen = await repo.sightings.see(e.ref, e.tip, now);
      if (standing(e, repo.me, now, snap.settings, seen).kind !== 'takeable') continue;
    }
    doomed.push({ ref: e.ref, newOid: null, lease: e.tip });
  }
  // Announcements expire on their own; the takeover delay covers a writer whose clock is behind.
  for (const a of snap.announcements.values()) {
    if (doomed.length >= MAX_PRUNE_PER_PUSH) break;
    if (now > a.record.at + a.record.ttl + snap.settings.takeoverDelay) doomed.push({ ref: a.ref, newOid: null, lease: a.tip });
  }
  if (doomed.length === 0) return new Set();
  try {
    const r = await repo.store.push(doomed, { atomic: false });
    const gone = r.ok ? doomed : doomed.filter((u) => r.remoteTips.get(u.ref) === null);
    return new Set(gone.map((u) => u.ref));
  } catch {
    return new Set(); // the remote went away: pruning waits for the next reader
  }
}
