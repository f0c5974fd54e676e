// Opening (or finding) the pull request for a work branch, and reading its state.
import { z } from 'zod';
import { ForgeRejected } from '../../core/refusals.js';
import type { GitHubClient } from './client.js';
import { PullStateAnswerSchema, RestPullSchema } from './shapes.js';

export interface RepoName {
  owner: string;
  repo: string;
}

export interface PullRequestInput extends RepoName {
  /** The work branch (same repository), or `owner:branch` for a fork. */
  head: string;
  /** The branch it merges into. */
  base: string;
  title: string;
  body: string;
}

export interface PullRequestRef {
  number: number;
  /** GraphQL node id, what enqueuePullRequest takes. */
  id: string;
  headOid: string;
  url?: string;
  /** `opened` when abcd created it, `updated` when it rewrote the title or body, else `found`. */
  action: 'opened' | 'updated' | 'found';
}

export interface PullRequestState {
  number: number;
  id: string;
  state: 'OPEN' | 'CLOSED' | 'MERGED';
  merged: boolean;
  headOid: string;
  base: string;
  /** MERGEABLE, CONFLICTING or UNKNOWN (GitHub computes it lazily). */
  mergeable: string;
  mergeStateStatus?: string;
  /** Whether the base branch has a merge queue: then landing goes through it, never REST merge. */
  mergeQueueEnabled: boolean;
  inMergeQueue: boolean;
  mergeQueueEntryState?: string;
  /** The commit the merge made on the base branch, once merged. */
  mergeCommit?: string;
  url?: string;
}

export function repoPath(r: RepoName): string {
  return `/repos/${encodeURIComponent(r.owner)}/${encodeURIComponent(r.repo)}`;
}

/** Finds the open pull request from head to base, else opens one; rewrites a stale title or body. */
export async function findOrOpenPullRequest(client: GitHubClient, i: PullRequestInput): Promise<PullRequestRef> {
  const qualified = i.head.includes(':') ? i.head : `${i.owner}:${i.head}`;
  const open = await client.rest(
    {
      method: 'GET',
      path: `${repoPath(i)}/pulls`,
      query: { head: qualified, base: i.base, state: 'open' },
      what: `find the pull request for ${qualified}`,
    },
    z.array(RestPullSchema),
  );
  const found = open[0];
  if (!found) {
    const made = await client.rest(
      {
        method: 'POST',
        path: `${repoPath(i)}/pulls`,
        body: { title: i.title, body: i.body, head: i.head, base: i.base },
        what: `open a pull request for ${qualified}`,
      },
      RestPullSchema,
    );
    return refOf(made, 'opened');
  }
  if (found.title === i.title && (found.body ?? '') === i.body) return refOf(found, 'found');
  const updated = await client.rest(
    {
      method: 'PATCH',
      path: `${repoPath(i)}/pulls/${found.number}`,
      body: { title: i.title, body: i.body },
      what: `update pull request #${found.number}`,
    },
    RestPullSchema,
  );
  return refOf(updated, 'updated');
}

const PULL_STATE_QUERY = `query AbcdPullRequestState($owner: String!, $repo: String!, $number: Int!) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      id number state merged headRefOid baseRefName mergeable mergeStateStatus
      isMergeQueueEnabled isInMergeQueue
      mergeQueueEntry { state }
      mergeCommit { oid }
      url
    }
  }
}`;

/** One GraphQL read: head, merged, mergeability, node id and the base branch's merge queue. */
export async function pullRequestState(client: GitHubClient, r: RepoName & { number: number; until?: number }): Promise<PullRequestState> {
  const d = await client.graphql(
    {
      operation: 'AbcdPullRequestState',
      query: PULL_STATE_QUERY,
      variables: { owner: r.owner, repo: r.repo, number: r.number },
      what: `read pull request #${r.number}`,
      ...(r.until !== undefined ? { until: r.until } : {}),
    },
    PullStateAnswerSchema,
  );
  const p = d.repository?.pullRequest;
  if (!p) {
    throw new ForgeRejected(
      `GitHub has no pull request #${r.number} in ${r.owner}/${r.repo}: not found: check the repository and the App's installation.`,
      {
        reason: 'not-found',
        number: r.number,
      },
    );
  }
  return {
    number: p.number,
    id: p.id,
    state: p.state,
    merged: p.merged,
    headOid: p.headRefOid,
    base: p.baseRefName,
    mergeable: p.mergeable,
    mergeQueueEnabled: p.isMergeQueueEnabled,
    inMergeQueue: p.isInMergeQueue,
    ...(p.mergeStateStatus ? { mergeStateStatus: p.mergeStateStatus } : {}),
    ...(p.mergeQueueEntry ? { mergeQueueEntryState: p.mergeQueueEntry.state } : {}),
    ...(p.mergeCommit ? { mergeCommit: p.mergeCommit.oid } : {}),
    ...(p.url ? { url: p.url } : {}),
  };
}

function refOf(p: z.infer<typeof RestPullSchema>, action: PullRequestRef['action']): PullRequestRef {
  return { number: p.number, id: p.node_id, headOid: p.head.sha, action, ...(p.html_url ? { url: p.html_url } : {}) };
}
