// The name of the remote's main branch, worked out locally.
import type { Repo } from './repo.js';

/**
 * The remote's main branch: its HEAD as this clone last learnt it (set at clone, or by
 * `git remote set-head`), else `main`. No network: push and land must agree on it cheaply.
 */
export async function resolveMainBranch(repo: Pick<Repo, 'git' | 'store'>): Promise<string> {
  const remote = repo.store.remote;
  const text = await repo.git.refs.symbolic(`refs/remotes/${remote}/HEAD`);
  const prefix = `refs/remotes/${remote}/`;
  return text?.startsWith(prefix) ? text.slice(prefix.length) : 'main';
}
