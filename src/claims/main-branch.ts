// The branch lanes land on (the remote's HEAD, else main) and how it is fetched.
import type { Repo } from '../repo/repo.js';
import type { Snapshot } from '../repo/snapshot.js';
import { resolveMainBranch } from '../repo/main-name.js';

/** The branch lanes land on (the remote's HEAD, else main) and how it is fetched. */
export interface MainBranch {
  main: string;
  /** Fetched with the records in one round trip; the same cache land uses. */
  fetchSpec: string;
  tip(): Promise<string>;
  /** main's tip as `snap` read it (with its records, no process), else the cached ref now. */
  tipIn(snap: Snapshot): Promise<string>;
}

export async function resolveMain(repo: Repo): Promise<MainBranch> {
  const main = await resolveMainBranch(repo);
  const cacheRef = `refs/abcd-land/${repo.store.remote}/${main}`;
  const tip = () => repo.git.refs.mustResolve(cacheRef);
  return { main, fetchSpec: `+refs/heads/${main}:${cacheRef}`, tip, tipIn: async (snap) => snap.fetched?.get(cacheRef) ?? tip() };
}
