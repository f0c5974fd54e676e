// Removing queue entries whose claim ended, so the queue never waits on the dead.
import { RemoteUnavailable } from '../../core/refusals.js';
import type { RefUpdate } from '../../records/store.js';
import { standing } from '../../claims/rules.js';
import { readClock, type ClockView } from '../../repo/clock-view.js';
import type { Repo } from '../../repo/repo.js';
import type { DeadEntry } from './queue-order.js';

/**
 * Deletes dead queue entries with a lease on each, in a push of their own. An entry dead only
 * because the clock says its claim lapsed goes only when the takeover rule agrees (this
 * clone's own sighting, the measured clock): a wrong clock deletes no live entry. Best-effort:
 * a lost lease means the holder came back and rewrote its entry; an unreachable remote waits
 * for the next land. Anything else is a bug and is thrown.
 */
export async function pruneQueue(repo: Repo, dead: readonly DeadEntry[], known?: ClockView): Promise<void> {
  const now = repo.deps.clock.now();
  let clock = known;
  const doomed: RefUpdate[] = [];
  for (const d of dead) {
    if (d.lapsed) {
      clock ??= await readClock(repo);
      const seen = await repo.sightings.see(d.lapsed.ref, d.lapsed.tip, now);
      if (standing(d.lapsed, repo.me, now, d.settings, seen, clock).kind !== 'takeable') continue;
    }
    doomed.push({ ref: d.queue.ref, newOid: null, lease: d.queue.tip });
  }
  if (doomed.length === 0) return;
  try {
    await repo.store.push(doomed, { atomic: false });
  } catch (e) {
    if (!(e instanceof RemoteUnavailable)) throw e;
  }
}
