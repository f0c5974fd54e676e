// Waiting for a pull request to merge (the wait ends by a stated time). Each poll is one
// GraphQL read bounded by the same deadline, so the refusal comes within one poll of it.
import type { Clock } from '../../core/deps.js';
import { DeadlineReached, ForgeRejected, RemoteUnavailable } from '../../core/refusals.js';
import { formatDuration } from '../../core/duration.js';
import type { GitHubClient } from './client.js';
import { pullRequestState, type PullRequestState, type RepoName } from './pull-requests.js';

export interface WaitForMergeInput extends RepoName {
  number: number;
  /** The instant (milliseconds on `clock`) by which it must have merged. */
  deadlineMs: number;
  pollMs: number;
  clock: Clock;
  /** It was put in the merge queue: open, unmerged and out of the queue then means dequeued. */
  queued?: boolean;
  /** Ends a sleep between polls early (the caller's claim was fenced, say). */
  signal?: AbortSignal;
}

export interface MergedPullRequest {
  mergeCommit: string;
  waitedMs: number;
}

// A single failed read in a 30-minute wait is weather, not an outage: give up only after this
// many in a row.
const MAX_FAILED_READS_IN_A_ROW = 3;
// The queue drops its entry and GitHub marks the pull request merged in two steps; one sighting
// of "open and out of the queue" may fall between them, two in a row do not.
const OUT_OF_QUEUE_READS_TO_DEQUEUE = 2;

export async function waitForMerge(client: GitHubClient, i: WaitForMergeInput): Promise<MergedPullRequest> {
  const { clock } = i;
  const started = clock.now();
  let failed = 0;
  let outOfQueue = 0;
  let last: PullRequestState | undefined;
  for (;;) {
    let pause = i.pollMs;
    try {
      last = await pullRequestState(client, { owner: i.owner, repo: i.repo, number: i.number, until: i.deadlineMs });
      failed = 0;
    } catch (e) {
      if (e instanceof DeadlineReached) throw tooLong(i, clock.now() - started, last);
      if (!(e instanceof RemoteUnavailable) || ++failed >= MAX_FAILED_READS_IN_A_ROW) throw e;
      pause = Math.max(pause, resetIn(e, clock.now()));
      last = undefined;
    }
    if (last) {
      if (last.merged && last.mergeCommit) return { mergeCommit: last.mergeCommit, waitedMs: clock.now() - started };
      if (last.state === 'CLOSED') {
        throw new ForgeRejected(`pull request #${i.number} was closed without merging; nothing landed. Reopen it or land again.`, {
          reason: 'closed',
          number: i.number,
        });
      }
      outOfQueue = i.queued && !last.merged && !last.inMergeQueue ? outOfQueue + 1 : 0;
      if (outOfQueue >= OUT_OF_QUEUE_READS_TO_DEQUEUE) {
        throw new ForgeRejected(
          `pull request #${i.number} left the merge queue without merging (a required check failed, it conflicted, ` +
            'or someone removed it); nothing landed. Look at the pull request, fix it, and land again.',
          { reason: 'dequeued', number: i.number, head: last.headOid, mergeable: last.mergeable },
        );
      }
    }
    const now = clock.now();
    if (now >= i.deadlineMs) throw tooLong(i, now - started, last);
    await clock.sleep(Math.min(pause, i.deadlineMs - now), i.signal);
    if (i.signal?.aborted) throw i.signal.reason;
  }
}

function tooLong(i: WaitForMergeInput, waitedMs: number, last: PullRequestState | undefined): DeadlineReached {
  const where = !last
    ? 'its state could not be read'
    : last.inMergeQueue
      ? `it is in the merge queue (${last.mergeQueueEntryState ?? 'queued'})`
      : 'it is still open';
  return new DeadlineReached(
    `waited ${formatDuration(waitedMs)} for pull request #${i.number} in ${i.owner}/${i.repo} to merge; ${where}. ` +
      'Nothing was withdrawn, so it may still merge: run abcd land again to pick it up, with a longer --wait.',
    { waitedOn: `pull request #${i.number}`, number: i.number, waitedMs, inMergeQueue: last?.inMergeQueue ?? null },
  );
}

/** How long a rate limit asks to wait, from the refusal's resetAt; 0 for any other failure. */
function resetIn(e: RemoteUnavailable, now: number): number {
  const at = typeof e.data.resetAt === 'string' ? Date.parse(e.data.resetAt) : NaN;
  return Number.isFinite(at) ? Math.max(0, at - now) : 0;
}
