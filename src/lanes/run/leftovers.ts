// What a lane run killed with -9 leaves behind, and the sweep the next lane makes of it. Each
// cycle removes its own folder, work branch and land worktree on every exit path but that one;
// everything a run keeps on disk is therefore named after its process (machine/owned-folders.ts):
// its cycle folders in the temporary directory, land's worktrees under the git dir, and a marker
// under <git-common-dir>/abcd/runs/ naming the run, through which the sweep finds the run's work
// branches and held-claim memory in this clone. Best effort: the sweep never fails a lane.
import { mkdir, readdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pruneDeadWorktrees } from '../../land/worktree.js';
import { ownerOf, pruneDeadCycleFolders, pruneDeadOwners, removeTree, SELF_NAME } from '../../machine/owned-folders.js';
import { readPidSpace } from '../../machine/gate/process.js';
import type { Repo } from '../../repo/repo.js';
import { unlessMissing, unlessRefusalOrSystemError, unlessSystemError } from '../../core/best-effort.js';

// A run id as lane-run.ts makes it (a UTC timestamp and random hex): nothing else is swept.
const RUN_ID = /^[0-9A-Za-z]+-[0-9a-f]+$/;

/**
 * Marks this run as this process's in the clone. The returned function, called when the run's
 * lanes have ended, removes the mark and the run's held-claim folders that are empty (one
 * still holding a claim, as after `--keep`, stays).
 */
export async function markRun(repo: Repo, runId: string): Promise<() => Promise<void>> {
  const dir = runsDir(repo);
  const path = join(dir, `${SELF_NAME}-${runId}`);
  try {
    await mkdir(dir, { recursive: true });
    // The pid space the name's pid means something in: a clone shared with a container holds
    // marks whose pids this process cannot judge, and leaves them be.
    await writeFile(path, readPidSpace() ?? '');
  } catch (e) {
    // A mark the disk refuses: a killed run's branches stay until removed by hand, and the run
    // goes on. A bug is thrown on.
    unlessSystemError(undefined)(e);
  }
  return async () => {
    await rm(path, { force: true }).catch(() => undefined); // cleanup: the mark may already be gone
    // cleanup: a folder already gone, or one still holding a claim (not empty), stays
    for (const dir of await heldOf(repo, runId)) await rmdir(dir).catch(() => undefined);
  };
}

/** The held-claim folders of the run's lanes (sessions `<session>.lane<n>.<run>`). */
async function heldOf(repo: Repo, runId: string): Promise<string[]> {
  const held = join(repo.commonDir, 'abcd', 'held');
  return (await readdir(held).catch(unlessMissing([] as string[]))).filter((s) => s.endsWith(`.${runId}`)).map((s) => join(held, s));
}

/** Removes what dead lane runs left: in the temporary directory, and in this clone. */
export async function sweepDeadRuns(repo: Repo, onLost?: (runId: string) => void): Promise<void> {
  await Promise.all([
    pruneDeadCycleFolders(repo.deps.config.tmpDir),
    // A prune git or the disk refuses is tried again by the next run's sweep; a bug is thrown on.
    pruneDeadWorktrees(repo).catch(unlessRefusalOrSystemError([])),
    pruneDeadOwners(runsDir(repo), '', (path) => forgetRun(repo, path, onLost)),
  ]);
}

/** A dead run's work branches (`lane/<item>/<run>-<cycle>`) and held-claim memory, then its mark. */
async function forgetRun(repo: Repo, marker: string, onLost?: (runId: string) => void): Promise<void> {
  const name = basename(marker);
  const owner = ownerOf(name)!;
  const runId = name.slice(`${owner.pid}-${owner.start ?? 'x'}-`.length);
  const space = await readFile(marker, 'utf8');
  if (space !== '' && space !== readPidSpace()) throw new Error(`${name} is a run in another pid space`);
  if (RUN_ID.test(runId)) {
    // Its mark is removed below: each lost run is told of once.
    onLost?.(runId);
    const cycleBranch = new RegExp(`^refs/heads/lane/.+/${runId}-\\d+$`);
    const refs = (await repo.git.refs.list(['refs/heads/lane/'])).map((r) => r.ref);
    const doomed = refs.filter((r) => cycleBranch.test(r));
    if (doomed.length) await repo.git.refs.deleteAll(doomed);
    for (const dir of await heldOf(repo, runId)) await removeTree(dir);
  }
  await rm(marker, { force: true });
}

function runsDir(repo: Repo): string {
  return join(repo.commonDir, 'abcd', 'runs');
}
