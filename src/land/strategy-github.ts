// `abcd land` on GitHub: push the work branch fenced by a claim renewal, open or update its pull
// request, re-read the claim's tip, land through the merge queue (or a REST merge where the base
// branch has none) naming the head it expects, wait for the merge, then mark the claim `done` in
// a fenced push.
//
// The fence (a claim is fenced by its tip): a GitHub act cannot share a git push with the claim, so the claim's tip is
// re-read immediately before the one call that acts, and that call names the expected head. The
// window between the re-read and GitHub carrying out the call is stated in the result
// (`fenceWindowMs`), not claimed closed: a takeover landing inside it is not seen.
import type { Clock } from '../core/deps.js';
import { GitHubClient } from '../forges/github/client.js';
import { enqueue, headMoved, merge } from '../forges/github/merge.js';
import { findOrOpenPullRequest, pullRequestState, type PullRequestRef, type RepoName } from '../forges/github/pull-requests.js';
import { waitForMerge } from '../forges/github/wait-merge.js';
import { formatItem } from '../records/item.js';
import { ForgeRejected, RemoteUnavailable, UnsafeEnvironment, type Refusal } from '../core/refusals.js';
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

// ---------------------------------------------------------------------------------------------
// The pull request's part: the work branch is already on the remote (pushed fenced above).

/** Between merge-state reads: the queue takes minutes, and 15 reads a second is GitHub's ceiling. */
export const MERGE_POLL_MS = 10_000;

export interface MergeOnGithubInput extends RepoName {
  client: GitHubClient;
  /** The work branch on the remote, and the branch it lands on. */
  branch: string;
  base: string;
  title: string;
  body: string;
  /** The work branch head the caller pushed: the only head GitHub may merge. */
  expectedHead: string;
  /** The claim tip the caller holds. */
  claimTip: string;
  /** Reads the claim's tip on the remote now (one fetch); called immediately before the act. */
  readClaimTip: () => Promise<string>;
  /** Builds the refusal to throw when the tip moved (the caller's Fenced, naming item and ref). */
  fenced: (foundTip: string) => Refusal;
  clock: Clock;
  /** The instant (milliseconds on `clock`) by which the pull request must have merged. */
  deadlineMs: number;
  pollMs?: number;
  /** For the REST merge where the base branch has no queue (the queue has its own setting). */
  mergeMethod?: 'merge' | 'squash' | 'rebase';
  signal?: AbortSignal;
}

export interface MergeOnGithubResult {
  number: number;
  url?: string;
  mergeCommit: string;
  via: 'merge-queue' | 'merge' | 'already-merged';
  pullRequest: PullRequestRef['action'];
  /** From the claim's re-read to GitHub's answer to the act: the window the claim's tip does not fence. */
  fenceWindowMs: number;
}

export async function mergeOnGithub(i: MergeOnGithubInput): Promise<MergeOnGithubResult> {
  const { client, clock } = i;
  const repo = { owner: i.owner, repo: i.repo };
  const pr = await findOrOpenPullRequest(client, { ...repo, head: i.branch, base: i.base, title: i.title, body: i.body });
  const done = (mergeCommit: string, via: MergeOnGithubResult['via'], fenceWindowMs: number): MergeOnGithubResult => ({
    number: pr.number,
    ...(pr.url ? { url: pr.url } : {}),
    mergeCommit,
    via,
    pullRequest: pr.action,
    fenceWindowMs,
  });
  const state = await pullRequestState(client, { ...repo, number: pr.number });
  if (state.merged && state.mergeCommit && state.headOid === i.expectedHead) return done(state.mergeCommit, 'already-merged', 0);
  if (state.inMergeQueue && state.headOid !== i.expectedHead) {
    throw headMoved({
      pr: `#${pr.number}`,
      expectedHead: i.expectedHead,
      said: `the merge queue holds head ${state.headOid}`,
      number: pr.number,
    });
  }

  const found = await i.readClaimTip();
  if (found !== i.claimTip) throw i.fenced(found);
  const reread = clock.now();

  if (!state.mergeQueueEnabled) {
    const { mergeCommit } = await merge(client, { ...repo, number: pr.number, sha: i.expectedHead, method: i.mergeMethod ?? 'merge' });
    return done(mergeCommit, 'merge', clock.now() - reread);
  }
  if (!state.inMergeQueue) {
    try {
      await enqueue(client, { pullRequestId: state.id, expectedHeadOid: i.expectedHead });
    } catch (e) {
      throw await explainRefusedEnqueue(e, i, pr.number);
    }
  }
  const fenceWindowMs = state.inMergeQueue ? 0 : clock.now() - reread;
  try {
    const merged = await waitForMerge(client, {
      ...repo,
      number: pr.number,
      deadlineMs: i.deadlineMs,
      pollMs: i.pollMs ?? MERGE_POLL_MS,
      clock,
      queued: true,
      ...(i.signal ? { signal: i.signal } : {}),
    });
    return done(merged.mergeCommit, 'merge-queue', fenceWindowMs);
  } catch (e) {
    // The entry stays in the queue: a read that failed now says nothing about whether it lands.
    if (e instanceof RemoteUnavailable && e.data.outcome === 'unchanged') {
      const why = `pull request #${pr.number} is in the merge queue and may still merge, but its state could not be read`;
      throw new RemoteUnavailable(`${why}: run abcd land again to pick it up. (${e.message})`, {
        ...e.data,
        outcome: 'unknown',
        number: pr.number,
      });
    }
    throw e;
  }
}

/** A refused enqueue whose pull request now has another head is `head-moved`, whatever GitHub said. */
async function explainRefusedEnqueue(e: unknown, i: MergeOnGithubInput, number: number): Promise<unknown> {
  if (!(e instanceof ForgeRejected) || e.data.reason === 'head-moved') return e;
  // Best effort: without the pull request's state, GitHub's own refusal is reported as it came.
  const now = await pullRequestState(i.client, { owner: i.owner, repo: i.repo, number }).catch(() => undefined);
  if (now && now.headOid !== i.expectedHead) {
    return headMoved({ pr: `#${number}`, expectedHead: i.expectedHead, said: `${e.message}; its head is now ${now.headOid}`, number });
  }
  return e;
}
