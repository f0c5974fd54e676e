// The name of the remote's main branch, worked out locally.
import type { Repo } from './repo.js';
import { readSymref } from '../git/files/symref-read.js';

/**
 * The remote's main branch: its HEAD as this clone last learnt it (set at clone, or by
 * `git remote set-head`), else `main`. No network: push and land must agree on it cheaply.
 */
export async function resolveMainBranch(repo: Pick<Repo, 'git' | 'store'> & Partial<Pick<Repo, 'gitDir' | 'commonDir'>>): Promise<string> {
  const remote = repo.store.remote;
  const name = `refs/remotes/${remote}/HEAD`;
  const prefix = `refs/remotes/${remote}/`;
  const { gitDir, commonDir } = repo;
  // From the clone's files where they say it plainly, else from git.
  const read = gitDir && commonDir ? await readSymref({ gitDir, commonDir }, name) : undefined;
  const text = read !== undefined ? (read ?? '') : ((await repo.git.refs.symbolic(name)) ?? '');
  return text.startsWith(prefix) ? text.slice(prefix.length) : 'main';
}
