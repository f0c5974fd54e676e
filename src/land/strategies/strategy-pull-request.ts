// `abcd land` on a forge that merges pull requests (GitHub): push the work branch fenced by a
// claim renewal, let the forge open or update its pull request, re-read the claim's tip and merge
// naming the head it expects (forges/github/landing.ts), then mark the claim `done` in a fenced
// push. The claim's part is here; the forge's part is its PullRequestLanding.
//
// The fence (a claim is fenced by its tip): a forge's act cannot share a git push with the claim, so the claim's tip is
// re-read immediately before the one call that acts, and that call names the expected head. The
// window between the re-read and the forge carrying out the call is stated in the result
// (GitHub's `fenceWindowMs`), not claimed closed: a takeover landing inside it is not seen.
import type { PullRequestLanding } from '../../forges/forge.js';
import { formatItem } from '../../records/item.js';
import { refusePush, workBranchUpdate } from '../../claims/write.js';
import { fencedAfterPush } from '../../claims/holding.js';
import type { Repo } from '../../repo/repo.js';
import { readSnapshot } from '../../repo/snapshot.js';
import type { LandContext, Landed, LandStrategy } from '../types.js';

// What readClaimTip answers while the claim is still this session's at the keeper's tip.
const STILL_MINE = 'held by this session';

/** The land strategy through the forge's pull requests. */
export function pullRequestStrategy(pullRequests: PullRequestLanding): LandStrategy<void> {
  return {
    precheck(repo) {
      pullRequests.precheck(repo.tokens ? { tokens: repo.tokens } : {});
    },
    async enter({ waiting, target, held, keeper, item, ref }) {
      await checkBeforePush(pullRequests, waiting, target.head, await target.mainTip());
      const pushed = await keeper.push(
        (claim) => ({
          claim: { ...claim, branch: target.branch, head: target.head },
          message: `push ${target.branch} to land ${claim.item} on ${target.main}`,
          extra: [workBranchUpdate(held.claim, target.branch, target.head)],
        }),
        { via: waiting },
      );
      if (!pushed.ok) throw refusePush(item, ref, held.tip, pushed);
    },
    land: (ctx) => landThroughPullRequest(pullRequests, ctx),
  };
}

async function landThroughPullRequest(pullRequests: PullRequestLanding, ctx: LandContext): Promise<Landed> {
  // Every network call of a pull request's land, the merge wait and the pushes around it, ends by --wait.
  const { waiting: repo, input, target, keeper, item, ref, deadline } = ctx;
  const merged = await pullRequests.merge({
    deps: repo.deps,
    ...(repo.tokens ? { tokens: repo.tokens } : {}),
    branch: target.branch,
    base: target.main,
    title: `${item}`,
    body: `Landed by abcd for ${formatItem(input.item)}, fenced by its claim.${input.pullRequestNote ? `\n\n${input.pullRequestNote}` : ''}`,
    expectedHead: target.head,
    claimTip: STILL_MINE,
    readClaimTip: () =>
      keeper.exclusive(async () => {
        const tip = (await readSnapshot(repo)).claims.get(ref)?.tip;
        return tip === keeper.tip ? STILL_MINE : (tip ?? 'no claim');
      }),
    fenced: (found) => fencedAfterPush(item, ref, keeper.tip, found === 'no claim' ? null : found),
    deadlineMs: deadline,
    signal: keeper.signal,
    // Without a merge queue the REST merge takes the method; a queue merges by its own setting.
    ...(input.strategy !== 'merge' ? { mergeMethod: input.strategy } : {}),
  });
  const done = await keeper.push(
    (claim) => ({
      claim: input.keep ? claim : { ...claim, state: 'done', landed: { main: target.main, tip: merged.mergeCommit } },
      message: `landed ${claim.item} on ${target.main} through ${merged.said}`,
      records: input.alsoWrite?.(merged.mergeCommit) ?? [],
    }),
    { via: repo },
  );
  if (!done.ok) throw refusePush(item, ref, keeper.tip, done);
  return { tip: merged.mergeCommit, attempts: 1, checks: [], enqueuedAt: ctx.started, ...merged.landed };
}

/** What the forge would refuse about the push (GitHub: workflow files without that permission), said first. */
async function checkBeforePush(pullRequests: PullRequestLanding, repo: Repo, head: string, mainTip: string): Promise<void> {
  const changed = await repo.git.diff.changedPaths(mainTip, head, { mergeBase: true, renames: true });
  await pullRequests.beforePush({ changedPaths: changed, configDir: repo.deps.config.configDir });
}
