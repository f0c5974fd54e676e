import { isRefSafe } from '../records/refs.js';
import { UsageError } from '../refusals.js';
import type { Repo } from './repo.js';

/**
 * The local work branch a verb acts on (the named one, else the current one) and its head.
 * A branch inside abcd's record namespace, or not ref-safe, is a usage error.
 */
export async function resolveWorkBranch(repo: Repo, named: string | undefined, verb: 'push' | 'land'): Promise<{ branch: string; head: string }> {
  const branch = named ?? (await repo.git.run(['symbolic-ref', '--short', '-q', 'HEAD'])).stdout.toString().trim();
  if (!branch) throw new UsageError(`HEAD is detached: name the branch (abcd ${verb} <item> <branch>).`, {});
  if (!isRefSafe(`refs/heads/${branch}`) || branch.startsWith('abcd/')) {
    throw new UsageError(`"${branch}" cannot be a work branch (not ref-safe, or inside abcd's record namespace abcd/).`, { branch });
  }
  const h = await repo.git.run(['rev-parse', '--verify', '-q', `refs/heads/${branch}^{commit}`]);
  if (h.exitCode !== 0) throw new UsageError(`branch ${branch} does not exist in this clone.`, { branch });
  return { branch, head: h.stdout.toString().trim() };
}
