// The name of the remote's main branch, worked out locally.
import type { Repo } from './repo.js';

/**
 * The remote's main branch: its HEAD as this clone last learnt it (set at clone, or by
 * `git remote set-head`), else `main`. No network: push and land must agree on it cheaply.
 */
export async function resolveMainBranch(repo: Pick<Repo, 'git' | 'store'>): Promise<string> {
  const remote = repo.store.remote;
  const sym = await repo.git.run(['symbolic-ref', '-q', `refs/remotes/${remote}/HEAD`]);
  const prefix = `refs/remotes/${remote}/`;
  const text = sym.stdout.toString().trim();
  return sym.exitCode === 0 && text.startsWith(prefix) ? text.slice(prefix.length) : 'main';
}
