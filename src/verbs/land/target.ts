import { isRefSafe } from '../../records/refs.js';
import { RemoteUnavailable, UsageError } from '../../refusals.js';
import { readSnapshot, type Snapshot } from '../snapshot.js';
import type { Repo } from '../repo.js';

/** What a land moves where: the work branch's head onto the remote's main branch. */
export interface LandTarget {
  branch: string;
  head: string;
  /** The remote's HEAD branch, else `main`. */
  main: string;
  /** Fetched with the records in the same round trip. */
  fetchSpec: string;
  /** main's tip as last fetched. */
  mainTip(): Promise<string>;
}

export async function resolveLandTarget(repo: Repo, branchArg: string | undefined): Promise<LandTarget> {
  const remote = repo.store.remote;
  const [cur, sym] = await Promise.all([
    branchArg ? Promise.resolve(branchArg) : repo.git.run(['symbolic-ref', '--short', '-q', 'HEAD']).then((r) => r.stdout.toString().trim()),
    repo.git.run(['symbolic-ref', '-q', `refs/remotes/${remote}/HEAD`]),
  ]);
  const branch = cur;
  if (!branch) throw new UsageError('HEAD is detached: name the branch to land (abcd land <item> <branch>).', {});
  if (!isRefSafe(`refs/heads/${branch}`) || branch.startsWith('abcd/')) {
    throw new UsageError(`"${branch}" cannot be a work branch (not ref-safe, or inside abcd's record namespace abcd/).`, { branch });
  }
  const prefix = `refs/remotes/${remote}/`;
  const symText = sym.stdout.toString().trim();
  const main = sym.exitCode === 0 && symText.startsWith(prefix) ? symText.slice(prefix.length) : 'main';
  if (branch === main) throw new UsageError(`land a work branch, not ${main} itself: abcd land <item> <work-branch>.`, { branch });
  const h = await repo.git.run(['rev-parse', '--verify', '-q', `refs/heads/${branch}^{commit}`]);
  if (h.exitCode !== 0) throw new UsageError(`branch ${branch} does not exist in this clone.`, { branch });
  const cacheRef = `refs/abcd-land/${remote}/${main}`;
  return {
    branch,
    head: h.stdout.toString().trim(),
    main,
    fetchSpec: `+refs/heads/${main}:${cacheRef}`,
    mainTip: () => repo.git.must(['rev-parse', '--verify', cacheRef]),
  };
}

/**
 * Reads the records together with main. A remote without that branch is a usage problem
 * (name it, or set the remote's HEAD), not an unreachable remote.
 */
export async function readWithMain(repo: Repo, target: LandTarget): Promise<Snapshot> {
  try {
    return await readSnapshot(repo, [target.fetchSpec]);
  } catch (e) {
    if (e instanceof RemoteUnavailable && /couldn't find remote ref/i.test(String(e.data.git))) {
      throw new UsageError(
        `the remote has no branch ${target.main} to land on. If its main branch has another name, run ` +
          `git remote set-head ${repo.store.remote} --auto (abcd lands on the remote's HEAD), then land again.`,
        { main: target.main },
      );
    }
    throw e;
  }
}
