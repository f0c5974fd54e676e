// A pull request's way onto main on GitHub: open or update it, re-read the claim's tip
// immediately before the one call that acts (a REST merge naming the head, or an enqueue in the
// merge queue), then wait for the merge. The work branch is already on the remote (pushed
// fenced by the caller).
import { unlessRefusal } from '../../core/best-effort.js';
import type { Clock } from '../../core/deps.js';
import { ForgeRejected, RemoteUnavailable, type Refusal } from '../../core/refusals.js';
import type { GitHubClient } from './client.js';
import { enqueue, headMoved, merge } from './merge.js';
import { findOrOpenPullRequest, pullRequestState, type PullRequestRef, type RepoName } from './pull-requests.js';
import { waitForMerge } from './wait-merge.js';

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
  // Best effort: when the state cannot be read (a refusal), GitHub's own refusal is reported as it came.
  const now = await pullRequestState(i.client, { owner: i.owner, repo: i.repo, number }).catch(unlessRefusal(undefined));
  if (now && now.headOid !== i.expectedHead) {
    return headMoved({ pr: `#${number}`, expectedHead: i.expectedHead, said: `${e.message}; its head is now ${now.headOid}`, number });
  }
  return e;
}
