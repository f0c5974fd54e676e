import type { Forge } from '../../forges/forge.js';
import { GitHubClient } from '../../forges/github/client.js';
import { landOnGithub } from '../../forges/github/land-github.js';
import { formatItem, shortItem } from '../../records/item.js';
import { claimRef } from '../../records/refs.js';
import { UnsafeEnvironment } from '../../refusals.js';
import { fencedAfterPush, requireMineOnBranch } from '../holding.js';
import type { Repo } from '../repo.js';
import { readSnapshot } from '../snapshot.js';
import { ClaimKeeper } from './claim-keeper.js';
import { refusePush, workBranchUpdate } from '../claim-write.js';
import type { LandInput, LandResult } from './land.js';
import { readWithMain, resolveLandTarget } from './target.js';

// What readClaimTip answers while the claim is still this session's at the keeper's tip.
const STILL_MINE = 'held by this session';

/**
 * GitHub: push the work branch fenced by a claim renewal, open or update its pull request,
 * re-read the claim immediately before enqueueing with expectedHeadOid (the one-call window
 * is reported, not claimed closed), wait for the merge, then mark the claim done fenced.
 */
export async function landGithub(repo: Repo, input: LandInput, forge: Extract<Forge, { kind: 'github' }>): Promise<LandResult> {
  const { clock, config: env } = repo.deps;
  const started = clock.now();
  const deadline = started + input.waitMs;
  // Without a wait there is no deadline to shorten git's timeouts toward: give them full time.
  if (input.waitMs > 0) repo.limitNetworkTo(deadline);
  const item = shortItem(input.item);
  const ref = claimRef(input.item);
  const tokens = repo.tokens;
  if (!tokens) {
    throw new UnsafeEnvironment(
      `landing on ${forge.host} needs abcd's App token and none is set up: run abcd setup-app (a step only you can take).`,
      { host: forge.host },
    );
  }
  const target = await resolveLandTarget(repo, input.branch);
  const held = await requireMineOnBranch(repo, await readWithMain(repo, target), { ref, item, branch: target.branch });
  await checkWorkflowPermission(repo, target.head, await target.mainTip());
  const keeper = new ClaimKeeper(repo, ref, item, held.tip, held.claim);
  const pushed = await keeper.push((claim) => ({
    claim: { ...claim, branch: target.branch, head: target.head },
    message: `push ${target.branch} to land ${claim.item} on ${target.main}`,
    extra: [workBranchUpdate(held.claim, target.branch, target.head)],
  }));
  if (!pushed.ok) throw refusePush(item, ref, held.tip, pushed);
  keeper.start();
  try {
    const api = env.github.apiUrl;
    const client = new GitHubClient({
      host: forge.host,
      ...(api ? { restUrl: api, graphqlUrl: env.github.graphqlUrl || `${api}/graphql` } : {}),
      token: async () => (await tokens.get()).token,
      clock,
      deadlineAt: deadline,
    });
    const landed = await landOnGithub({
      client,
      owner: forge.owner,
      repo: forge.repo,
      branch: target.branch,
      base: target.main,
      title: `${item}`,
      body: `Landed by abcd for ${formatItem(input.item)}, fenced by its claim.`,
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
      ...(input.strategy === 'rebase' ? { mergeMethod: 'rebase' as const } : {}),
    });
    const done = await keeper.push((claim) => ({
      claim: input.keep ? claim : { ...claim, state: 'done', landed: { main: target.main, tip: landed.mergeCommit } },
      message: `landed ${claim.item} on ${target.main} through pull request #${landed.number}`,
    }));
    if (!done.ok) throw refusePush(item, ref, keeper.tip, done);
    if (!input.keep) await repo.held.forget(ref);
    return {
      item,
      main: target.main,
      tip: landed.mergeCommit,
      head: target.head,
      branch: target.branch,
      attempts: 1,
      checks: [],
      enqueuedAt: started,
      waitedMs: clock.now() - started,
      claim: input.keep ? 'held' : 'done',
      github: { number: landed.number, ...(landed.url ? { url: landed.url } : {}), via: landed.via, fenceWindowMs: landed.fenceWindowMs },
    };
  } finally {
    await keeper.stop();
  }
}

/** GitHub refuses an App's push that touches .github/workflows without that permission: say so first. */
async function checkWorkflowPermission(repo: Repo, head: string, mainTip: string): Promise<void> {
  const changed = (await repo.git.must(['diff', '--name-only', `${mainTip}...${head}`])).split('\n').filter(Boolean);
  const [{ appPaths, loadAppConfig }, { assertWorkflowPermission }] = await Promise.all([
    import('../../credentials/app-config.js'),
    import('../../forges/github/workflow-permission.js'),
  ]);
  const config = await loadAppConfig(appPaths(repo.deps.config.configDir));
  assertWorkflowPermission({ changedPaths: changed, permissions: config.permissions ?? {} });
}
