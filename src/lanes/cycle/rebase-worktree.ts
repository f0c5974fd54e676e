// Bringing a cycle's worktree to main's new tip when its land conflicted, with the conflict
// left in the files for the agent to resolve (ADR 0089). abcd never runs git in the agent's
// repository once the agent has run there, so it builds a fresh one of its own beside the
// cycle's folder, out of the agent's sight: at the new main, the kept work merged in as one
// squashed change (conflict markers where git could not merge), then swaps it in at the same
// path. The agent's session goes on in the same worktree, and no commit of its work can be
// left behind by a resolution that stops half-way, as a rebase of several commits could.
import { randomBytes } from '../../core/builtins.js';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Git } from '../../git/git.js';
import type { Env } from '../../core/deps.js';
import type { Signature } from '../../records/objects.js';
import { removeTree } from '../../machine/owned-folders.js';
import { prepareAgentRepo } from '../run/agent-repo.js';
import { fillLaneStore } from '../../repo/lane-objects.js';

export interface Rebased {
  /** The files git could not merge (markers left in them); empty: it merged cleanly. */
  files: string[];
  /** The store's objects folder (now holding the new main). */
  storeObjects: string;
}

/**
 * Replaces `<cycleDir>/wt` with a repository on `branch` at `mainTip`, whose worktree and
 * index hold `workHead`'s change since `base` merged in (uncommitted). `lane` is the clone,
 * which holds `workHead` (taken from the agent) and `mainTip` (the land read it).
 */
export async function bringToMain(o: {
  env: Env;
  lane: Git;
  laneGitDir: string;
  commonDir: string;
  cycleDir: string;
  branch: string;
  base: string;
  workHead: string;
  mainTip: string;
  who: Signature;
}): Promise<Rebased> {
  const storeObjects = await fillLaneStore({ env: o.env, commonDir: o.commonDir, runHead: o.mainTip });
  // Named after the cycle's folder, so what a lane killed meanwhile leaves is swept with it.
  const staging = await mkdtemp(`${o.cycleDir}-rebase-`);
  try {
    const wt = await prepareAgentRepo({
      env: o.env,
      objectsDir: storeObjects,
      cycleDir: staging,
      branch: o.branch,
      runHead: o.mainTip,
      who: o.who,
    });
    const fresh = new Git(wt, o.env);
    // Only the work's own objects travel (what `base`, which main reaches, does not): the
    // clone's other objects (the person's) never enter a repository the agent reads.
    const pack = await o.lane.packs.packObjects([o.workHead], [o.base], { env: { GIT_DIR: o.laneGitDir } });
    if (!pack.ok) throw new Error(`could not pack the kept work ${o.workHead}: ${pack.failure.stderr.trim()}`);
    await fresh.packs.mustIndexPack(pack.value);
    const merge = await fresh.work.squashMerge(o.workHead, { env: { GIT_MERGE_AUTOEDIT: 'no', GIT_EDITOR: 'true' } });
    const files = merge.ok ? [] : merge.conflict;
    // The agent's repository (hostile now) goes aside, abcd's takes its place, then the old one goes.
    const old = join(o.cycleDir, `wt-replaced-${randomBytes(4).toString('hex')}`);
    await rename(join(o.cycleDir, 'wt'), old);
    await rename(wt, join(o.cycleDir, 'wt'));
    await removeTree(old);
    return { files, storeObjects };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
