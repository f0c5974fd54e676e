// land's first read, started as soon as the clone is open: the records and main in one fetch,
// under the deadline of the land's wait, while the land's own modules load. The land then
// reads through the same store under the same deadline and takes that fetch instead of
// starting another (RecordStore.prefetch).
import { resolveMainBranch } from '../repo/main-name.js';
import { withNetworkDeadline, type Repo } from '../repo/repo.js';

/** Where a land fetches main to, and the refspec that does it, beside the records. */
export function mainCopy(remote: string, main: string): { cacheRef: string; fetchSpec: string } {
  const cacheRef = `refs/abcd-land/${remote}/${main}`;
  return { cacheRef, fetchSpec: `+refs/heads/${main}:${cacheRef}` };
}

/**
 * The repository a land's waits read through: its network calls end by the wait's end
 * (`started + waitMs`). Without a wait there is no deadline to shorten git's timeouts toward.
 */
export function landWaiting(repo: Repo, waitMs: number, started: number): Repo {
  return waitMs > 0 ? withNetworkDeadline(repo, started + waitMs, started) : repo;
}

/**
 * Starts the land's first read now, for a land whose wait began at `started`: only where the
 * land goes through the records' queue (a forge's pull-request land checks its own settings
 * before it reads anything).
 */
export async function startLandRead(repo: Repo, waitMs: number, started: number): Promise<void> {
  if (repo.forge.landing.through !== 'records-queue') return;
  const { fetchSpec } = mainCopy(repo.store.remote, await resolveMainBranch(repo));
  landWaiting(repo, waitMs, started).store.prefetch([fetchSpec]);
}
