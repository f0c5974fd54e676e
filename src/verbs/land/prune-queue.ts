import type { Repo } from '../repo.js';
import type { QueueEntry } from '../snapshot.js';

/**
 * Deletes dead queue entries (their claim lapsed) with a lease on each, in a push of their
 * own. Best-effort: a lost lease means the holder came back and rewrote its entry.
 */
export async function pruneQueue(repo: Repo, dead: readonly QueueEntry[]): Promise<void> {
  await repo.store.push(dead.map((q) => ({ ref: q.ref, newOid: null, lease: q.tip })), { atomic: false }).catch(() => undefined);
}
