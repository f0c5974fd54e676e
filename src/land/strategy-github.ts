// `abcd land` on GitHub: push the work branch fenced by a claim renewal, open or update its pull
// request, re-read the claim's tip, land through the merge queue (or a REST merge where the base
// branch has none) naming the head it expects, wait for the merge, then mark the claim `done` in
// a fenced push.
//
// The fence (a claim is fenced by its tip): a GitHub act cannot share a git push with the claim, so the claim's tip is
// re-read immediately before the one call that acts, and that call names the expected head. The
// window between the re-read and GitHub carrying out the call is stated in the result
// (`fenceWindowMs`), not claimed closed: a takeover landing inside it is not seen.
import { GitHubClient } from '../forges/github/client.js';
import { mergeOnGithub } from '../forges/github/merge-pull-request.js';
import { formatItem } from '../records/item.js';
import { UnsafeEnvironment } from '../core/refusals.js';
import { refusePush, workBranchUpdate } from '../claims/write.js';
import { fencedAfterPush } from '../claims/holding.js';
import type { Repo } from '../repo/repo.js';
import { readSnapshot } from '../repo/snapshot.js';
import type { LandContext, Landed, LandStrategy } from './types.js';

// What readClaimTip answers while the claim is still this session's at the keeper's tip.
const STILL_MINE = 'held by this session';

export const githubStrategy: LandStrategy<void> = {
  precheck(repo) {
    const forge = githubOf(repo);
    if (!repo.tokens) {
      throw new UnsafeEnvironment(
        `landing on ${forge.host} needs abcd's App token and none is set up: run abcd setup-app (a step only you can take).`,
        { host: forge.host },
      );
    }
  },
  async enter({ waiting, target, held, keeper, item, ref }) {
    await checkWorkflowPermission(waiting, target.head, await target.mainTip());
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
  land: landThroughPullRequest,
};

function githubOf(repo: Repo) {
  if (repo.forge.kind !== 'github') throw new Error('the GitHub strategy needs a GitHub forge');
  return repo.forge;
}

async function landThroughPullRequest(ctx: LandContext): Promise<Landed> {
  // Every network call of a GitHub land, the merge wait and the pushes around it, ends by --wait.
  const { waiting: repo, input, target, keeper, item, ref, deadline } = ctx;
  const { clock, config: env } = repo.deps;
  const forge = githubOf(repo);
  const tokens = repo.tokens!;
  const api = env.github.apiUrl;
  const client = new GitHubClient({
    host: forge.host,
    ...(api ? { restUrl: api, graphqlUrl: env.github.graphqlUrl || `${api}/graphql` } : {}),
    token: async () => (await tokens.get()).token,
    clock,
    deadlineAt: deadline,
  });
  const landed = await mergeOnGithub({
    client,
    owner: forge.owner,
    repo: forge.repo,
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
    clock,
    deadlineMs: deadline,
    signal: keeper.signal,
    // Without a merge queue the REST merge takes the method; a queue merges by its own setting.
    ...(input.strategy !== 'merge' ? { mergeMethod: input.strategy } : {}),
  });
  const done = await keeper.push(
    (claim) => ({
      claim: input.keep ? claim : { ...claim, state: 'done', landed: { main: target.main, tip: landed.mergeCommit } },
      message: `landed ${claim.item} on ${target.main} through pull request #${landed.number}`,
      records: input.alsoWrite?.(landed.mergeCommit) ?? [],
    }),
    { via: repo },
  );
  if (!done.ok) throw refusePush(item, ref, keeper.tip, done);
  return {
    tip: landed.mergeCommit,
    attempts: 1,
    checks: [],
    enqueuedAt: ctx.started,
    github: { number: landed.number, ...(landed.url ? { url: landed.url } : {}), via: landed.via, fenceWindowMs: landed.fenceWindowMs },
  };
}

/** GitHub refuses an App's push that touches .github/workflows without that permission: say so first. */
async function checkWorkflowPermission(repo: Repo, head: string, mainTip: string): Promise<void> {
  const changed = (await repo.git.must(['diff', '--name-only', `${mainTip}...${head}`])).split('\n').filter(Boolean);
  const [{ appPaths, loadAppConfig }, { assertWorkflowPermission }] = await Promise.all([
    import('../forges/github/credentials/app-config.js'),
    import('../forges/github/workflow-permission.js'),
  ]);
  const config = await loadAppConfig(appPaths(repo.deps.config.configDir));
  assertWorkflowPermission({ changedPaths: changed, permissions: config.permissions ?? {} });
}
