// Opening the clone before a verb's domain loads: git works while the modules are read.
import { loadObjectWriting } from '../core/builtins.js';
import type { Deps } from '../core/deps.js';
import type { Repo } from '../repo/repo.js';

/**
 * Opens the clone and starts the records' fetch, then loads the verb's domain (`load`) while
 * that fetch runs: module evaluation (the record schemas above all) overlaps git instead of
 * coming before it. For verbs whose first network act is that fetch (their first readSnapshot).
 * `writes`: the verb writes a record after the fetch, so node:crypto and node:zlib load in the
 * same wait; a read-only verb (`status`) never loads them.
 */
export async function openThenLoad<M>(
  deps: Deps,
  load: () => Promise<M>,
  o: { writes?: boolean } = {},
): Promise<{ repo: Repo; domain: M }> {
  const { openRepo } = await import('../repo/repo.js');
  const repo = await openRepo(deps, { prefetch: true });
  const domain = await load();
  if (o.writes) loadObjectWriting();
  return { repo, domain };
}
