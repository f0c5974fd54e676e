// The two ways a pull request lands, each naming the head abcd expects so GitHub itself refuses
// a head that moved: the merge queue (GraphQL enqueuePullRequest with expectedHeadOid) where the
// base branch has one, else the REST merge with `sha` (409 when the head moved).
import { ForgeRejected, isRefusal } from '../../core/refusals.js';
import type { GitHubClient } from './client.js';
import { repoPath, type RepoName } from './pull-requests.js';
import { EnqueueAnswerSchema, RestMergeSchema } from './shapes.js';

export interface EnqueueInput {
  /** The pull request's GraphQL node id. */
  pullRequestId: string;
  /** The head the caller expects to land; GitHub refuses the enqueue if the PR's head differs. */
  expectedHeadOid: string;
}

export interface EnqueueResult {
  entryId: string;
  state: string;
  position?: number;
}

const ENQUEUE_MUTATION = `mutation AbcdEnqueue($pullRequestId: ID!, $expectedHeadOid: GitObjectID!) {
  enqueuePullRequest(input: {pullRequestId: $pullRequestId, expectedHeadOid: $expectedHeadOid}) {
    mergeQueueEntry { id state position }
  }
}`;

// GitHub's wording for an expectedHeadOid mismatch is not documented; this matches any message
// about the head not being the expected one. land-github.ts re-reads the head as well.
const HEAD_MISMATCH = /head/i;
const HEAD_MISMATCH_DETAIL = /expect|match|oid|sha|changed|moved/i;

export async function enqueue(client: GitHubClient, i: EnqueueInput): Promise<EnqueueResult> {
  let d;
  try {
    d = await client.graphql(
      {
        operation: 'AbcdEnqueue',
        query: ENQUEUE_MUTATION,
        variables: { pullRequestId: i.pullRequestId, expectedHeadOid: i.expectedHeadOid },
        what: `enqueue ${i.pullRequestId} expecting head ${i.expectedHeadOid.slice(0, 12)}`,
      },
      EnqueueAnswerSchema,
    );
  } catch (e) {
    if (isRefusal(e) && e.data.reason === 'graphql-error') {
      const said = String(e.data.githubMessage ?? '');
      if (HEAD_MISMATCH.test(said) && HEAD_MISMATCH_DETAIL.test(said))
        throw headMoved({ pr: i.pullRequestId, expectedHead: i.expectedHeadOid, said });
    }
    throw e;
  }
  const entry = d.enqueuePullRequest?.mergeQueueEntry;
  if (!entry) {
    throw new ForgeRejected(
      `GitHub accepted the enqueue of ${i.pullRequestId} but made no merge queue entry; read the pull request and land again.`,
      {
        reason: 'not-enqueued',
        pullRequestId: i.pullRequestId,
      },
    );
  }
  return { entryId: entry.id, state: entry.state, ...(typeof entry.position === 'number' ? { position: entry.position } : {}) };
}

export interface MergeInput extends RepoName {
  number: number;
  /** The head the caller expects; GitHub answers 409 when the pull request's head differs. */
  sha: string;
  method: 'merge' | 'squash' | 'rebase';
}

/** REST merge; resolves to the commit it made on the base branch. */
export async function merge(client: GitHubClient, i: MergeInput): Promise<{ mergeCommit: string }> {
  let r;
  try {
    r = await client.rest(
      {
        method: 'PUT',
        path: `${repoPath(i)}/pulls/${i.number}/merge`,
        body: { sha: i.sha, merge_method: i.method },
        what: `merge pull request #${i.number} at ${i.sha.slice(0, 12)}`,
      },
      RestMergeSchema,
    );
  } catch (e) {
    if (isRefusal(e) && e.data.status === 409)
      throw headMoved({ pr: `#${i.number}`, expectedHead: i.sha, said: String(e.data.githubMessage ?? ''), number: i.number });
    throw e;
  }
  if (!r.merged || !r.sha) {
    throw new ForgeRejected(`GitHub did not merge pull request #${i.number}: ${r.message ?? 'no reason given'}.`, {
      reason: 'not-merged',
      number: i.number,
      expectedHead: i.sha,
    });
  }
  return { mergeCommit: r.sha };
}

/** The pull request's head is not the one abcd named: someone pushed to the work branch. */
export function headMoved({
  pr,
  expectedHead,
  said,
  number,
}: {
  pr: string;
  expectedHead: string;
  said: string;
  number?: number;
}): ForgeRejected {
  return new ForgeRejected(
    `the head of pull request ${pr} is no longer ${expectedHead} (GitHub: ${said || 'head moved'}); nothing landed. ` +
      'Someone pushed to the work branch: fetch it, check what changed, and land again.',
    { reason: 'head-moved', expectedHead, ...(number !== undefined ? { number } : {}), githubMessage: said },
  );
}
