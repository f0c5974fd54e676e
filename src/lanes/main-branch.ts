import type { Repo } from '../verbs/repo.js';
import { resolveMainBranch } from '../verbs/work-branch.js';

/** The branch lanes land on (the remote's HEAD, else main) and how it is fetched. */
export interface MainBranch {
  main: string;
  /** Fetched with the records in one round trip; the same cache land uses. */
  fetchSpec: string;
  tip(): Promise<string>;
}

export async function resolveMain(repo: Repo): Promise<MainBranch> {
  const main = await resolveMainBranch(repo);
  const cacheRef = `refs/abcd-land/${repo.store.remote}/${main}`;
  return { main, fetchSpec: `+refs/heads/${main}:${cacheRef}`, tip: () => repo.git.must(['rev-parse', '--verify', cacheRef]) };
}
