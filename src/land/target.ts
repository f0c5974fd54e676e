// What a land moves where: the work branch's head onto the remote's main branch.
import { refuseMainBranch, resolveWorkBranch } from '../claims/work-branch.js';
import { resolveMainBranch } from '../repo/main-name.js';
import { NothingToLand, RemoteUnavailable, UsageError } from '../core/refusals.js';
import { readSnapshot, type Snapshot } from '../repo/snapshot.js';
import type { Repo } from '../repo/repo.js';
import { mainCopy } from './early-read.js';

/** What a land moves where: the work branch's head onto the remote's main branch. */
export interface LandTarget {
  branch: string;
  head: string;
  /** The remote's HEAD branch, else `main`. */
  main: string;
  /** Fetched with the records in the same round trip. */
  fetchSpec: string;
  /** main's tip as last fetched: as the last read() saw it, else read from the local copy. */
  mainTip(): Promise<string>;
  /**
   * Reads the records together with main (one round trip) and main's tip in the same local read,
   * through `via` (the land's repository under the network deadline of the step reading).
   */
  read(via: Repo): Promise<Snapshot>;
  /** Another fetch (fetchHeads) may have moved the local copy of main: mainTip() reads it again. */
  forgetTip(): void;
}

export async function resolveLandTarget(repo: Repo, item: string, branchArg: string | undefined): Promise<LandTarget> {
  const remote = repo.store.remote;
  const [{ branch, head }, main] = await Promise.all([resolveWorkBranch(repo, branchArg, 'land'), resolveMainBranch(repo)]);
  refuseMainBranch({ item, branch, main, verb: 'land' });
  const { cacheRef, fetchSpec } = mainCopy(remote, main);
  // Only a fetch of fetchSpec moves the local copy of main, and every such fetch in this land
  // goes through read() or is followed by forgetTip(): until then, the tip last read is current.
  let known: string | undefined;
  return {
    branch,
    head,
    main,
    fetchSpec,
    mainTip: async () => (known ??= await repo.git.refs.mustResolve(cacheRef)),
    async read(via) {
      known = undefined;
      const snap = await readSnapshot(via, [fetchSpec]);
      known = snap.fetched?.get(cacheRef);
      return snap;
    },
    forgetTip: () => {
      known = undefined;
    },
  };
}

/**
 * Reads the records together with main. A remote without that branch is a usage problem
 * (name it, or set the remote's HEAD), not an unreachable remote.
 */
export async function readWithMain(repo: Repo, target: LandTarget): Promise<Snapshot> {
  try {
    return await target.read(repo);
  } catch (e) {
    if (e instanceof RemoteUnavailable && /couldn't find remote ref/i.test(String(e.data.git))) {
      throw new UsageError(
        `the remote has no branch ${target.main} to land on. If its main branch has another name, run ` +
          `git remote set-head ${repo.store.remote} --auto (abcd lands on the remote's HEAD), then land again.`,
        'no-main',
        { main: target.main },
      );
    }
    throw e;
  }
}

/**
 * Refuses a work branch whose head main already contains: landing it would change nothing
 * yet mark the item done. Checked after the read, against main's tip as just fetched.
 */
export async function refuseNothingToLand(repo: Repo, target: LandTarget, item: string): Promise<void> {
  const mainTip = await target.mainTip();
  if (!(await repo.git.refs.isAncestor(target.head, mainTip))) return;
  throw new NothingToLand(
    `${target.branch} has no commits beyond ${target.main} (its head ${target.head.slice(0, 12)} is already in ` +
      `${target.main} at ${mainTip.slice(0, 12)}): there is nothing to land for ${item}. Commit your work on ` +
      `${target.branch} first, or land the branch that has it: abcd land ${item} <branch>.`,
    { item, branch: target.branch, head: target.head, main: target.main, mainTip },
  );
}
