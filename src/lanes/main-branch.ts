import type { Repo } from '../verbs/repo.js';

/** The branch lanes land on (the remote's HEAD, else main) and how it is fetched. */
export interface MainBranch {
  main: string;
  /** Fetched with the records in one round trip; the same cache land uses. */
  fetchSpec: string;
  tip(): Promise<string>;
}

export async function resolveMain(repo: Repo): Promise<MainBranch> {
  const remote = repo.store.remote;
  const sym = await repo.git.run(['symbolic-ref', '-q', `refs/remotes/${remote}/HEAD`]);
  const prefix = `refs/remotes/${remote}/`;
  const text = sym.stdout.toString().trim();
  const main = sym.exitCode === 0 && text.startsWith(prefix) ? text.slice(prefix.length) : 'main';
  const cacheRef = `refs/abcd-land/${remote}/${main}`;
  return { main, fetchSpec: `+refs/heads/${main}:${cacheRef}`, tip: () => repo.git.must(['rev-parse', '--verify', cacheRef]) };
}
