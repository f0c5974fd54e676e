// Which branch holds a claim's work, and the refusal to treat main as one.
import { expiresAt } from '../records/claim.js';
import { formatHolder } from '../records/holder.js';
import { isRefSafe } from '../records/refs.js';
import { BranchRefused, UsageError } from '../core/refusals.js';
import { sanitizeLine } from '../core/sanitize.js';
import { formatInstant } from '../core/duration.js';
import type { Repo } from '../repo/repo.js';
import { currentBranch } from '../git/files/symref-read.js';
import type { Snapshot } from '../repo/snapshot.js';

/**
 * The local work branch a verb acts on (the named one, else the current one) and its head.
 * A branch that is not ref-safe is a usage error; one inside abcd's record namespace is refused.
 */
export async function resolveWorkBranch(
  repo: Repo,
  named: string | undefined,
  verb: 'push' | 'land',
): Promise<{ branch: string; head: string }> {
  const branch = named ?? (await currentBranchOf(repo));
  if (!branch) throw new UsageError(`HEAD is detached: name the branch (abcd ${verb} <item> <branch>).`, 'argument');
  if (!isRefSafe(`refs/heads/${branch}`))
    throw new UsageError(`"${branch}" cannot be a work branch: it is not a valid branch name.`, 'branch', { branch });
  if (branch === 'abcd' || branch.startsWith('abcd/')) {
    throw new BranchRefused(
      `"${branch}" is inside abcd's record namespace (abcd/): abcd never ${verb}es work there. Commit on a work branch (git switch -c work/<item>).`,
      { branch, reason: 'record-namespace' },
    );
  }
  const head = await repo.git.refs.commitOf(`refs/heads/${branch}`);
  if (head === undefined) throw new UsageError(`branch ${branch} does not exist in this clone.`, 'branch', { branch });
  return { branch, head };
}

/** The branch HEAD is on ('' when detached): from the clone's files where plain, else from git. */
async function currentBranchOf(repo: Repo): Promise<string> {
  const read = await currentBranch(repo);
  if (read !== undefined) return read ?? '';
  return (await repo.git.refs.symbolic('HEAD', { short: true })) ?? '';
}

/**
 * Only land writes main, and only from a work branch: a push of main, or a land from it, is
 * refused before anything is read or sent, saying how to move the commits off it.
 */
export function refuseMainBranch(o: { item: string; branch: string; main: string; verb?: 'push' | 'land' }): void {
  // `main` is refused even when the remote's HEAD names another branch: a stale or missing
  // HEAD in this clone must not turn the conventional main branch into a work branch.
  if (o.branch !== o.main && o.branch !== 'main') return;
  const why =
    o.verb === 'land'
      ? `abcd land lands a work branch onto it, never ${o.branch} itself`
      : 'abcd push never moves it; only abcd land writes it, through the queue and the checks';
  throw new BranchRefused(
    `${o.branch} is the remote's main branch: ${why}. Move your commits to a work branch (git switch -c work/${o.item}) and push that, then abcd land ${o.item}.`,
    { item: o.item, branch: o.branch, reason: 'main', main: o.main },
  );
}

/**
 * A branch another item's live claim recorded belongs to that claim's work: pushing to it
 * under this claim is refused, naming that claim. Live: held, expired or not (its holder may
 * still renew; the person clears a dead one with abcd release <item> --force).
 */
export function refuseClaimedElsewhere(snap: Snapshot, o: { ref: string; item: string; branch: string }): void {
  for (const e of snap.claims.values()) {
    if (e.ref === o.ref || e.claim.state !== 'held' || e.claim.branch !== o.branch) continue;
    const holder = sanitizeLine(formatHolder(e.claim.holder));
    throw new BranchRefused(
      `${o.branch} is the work branch of ${e.item}, claimed by ${holder} (generation ${e.claim.gen}, until ` +
        `${formatInstant(expiresAt(e.claim))}): abcd will not push it under ${o.item}. Push your commits on a branch of ` +
        `your own (git switch -c work/${o.item}), or ask that holder to release ${e.item}.`,
      {
        item: o.item,
        branch: o.branch,
        reason: 'claimed',
        claimedBy: { item: e.item, ref: e.ref, holder, gen: e.claim.gen, tip: e.tip },
      },
    );
  }
}
