// The GitHub forge against a local server that answers only the stubbed endpoints and checks
// that every stub was used (gh's httpmock Verify): request bodies, the head abcd names, the
// token it sends, and the refusal each failure becomes.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/deps.js';
import { mergeOnGithub, type MergeOnGithubInput } from '../../src/forges/github/merge-pull-request.js';
import { enqueue, merge } from '../../src/forges/github/merge.js';
import { findOrOpenPullRequest } from '../../src/forges/github/pull-requests.js';
import { waitForMerge } from '../../src/forges/github/wait-merge.js';
import { DeadlineReached, Fenced, ForgeRejected, RemoteUnavailable, UnsafeEnvironment } from '../../src/core/refusals.js';
import { useGitHubStub } from '../harness/github-client-stub.js';
import { bearerDigest, pullStateAnswer, restPull } from '../harness/github-stub.js';

// Long enough to look like a new-format installation token; tests check it never leaks.
const TOKEN = 'ghs_forgeTestToken0123456789abcdefABCDEF';
const OWNER = 'octo';
const REPO = 'widgets';
const BRANCH = 'abcd/work/fix-login';
const HEAD = '1'.repeat(40);
const OTHER_HEAD = '2'.repeat(40);
const CLAIM_TIP = 'c'.repeat(40);
const MERGE_COMMIT = 'e'.repeat(40);
const PULLS = `/repos/${OWNER}/${REPO}/pulls`;
const PR = { number: 7, head: HEAD };
const ITEM = 'local:item:fix-login';
const CLAIM_REF = 'refs/heads/abcd/claims/local/item/fix-login';
/** The refusal the land builds when its claim moved: what it expected, what the remote has. */
const claimMoved = (message: string, found: string) =>
  new Fenced(message, { item: ITEM, ref: CLAIM_REF, expected: CLAIM_TIP, actual: found });

const gh = useGitHubStub(TOKEN, (stub) => {
  for (const r of stub.requests) expect(r.authorization).toBe(bearerDigest(TOKEN));
});
const { client, refusal } = gh;

/** GitHub refuses to put the pull request in its merge queue. */
function stubRefusedEnqueue(): void {
  gh.stub.on({
    method: 'POST',
    path: '/graphql',
    operation: 'AbcdEnqueue',
    reply: {
      body: { data: { enqueuePullRequest: null }, errors: [{ type: 'UNPROCESSABLE', message: 'Pull request is not mergeable' }] },
    },
  });
}

function stubListPulls(pulls: unknown[]) {
  gh.stub.on({ method: 'GET', path: PULLS, query: { head: `${OWNER}:${BRANCH}`, base: 'main', state: 'open' }, reply: { body: pulls } });
}
function stubState(over: Record<string, unknown> = {}, times: number | 'many' = 1) {
  gh.stub.on({ method: 'POST', path: '/graphql', operation: 'AbcdPullRequestState', reply: { body: pullStateAnswer(PR, over) }, times });
}

function landInput(over: Partial<MergeOnGithubInput> = {}): MergeOnGithubInput {
  return {
    client: client(),
    owner: OWNER,
    repo: REPO,
    branch: BRANCH,
    base: 'main',
    title: 'Land fix-login',
    body: 'abcd lands local:item:fix-login',
    expectedHead: HEAD,
    claimTip: CLAIM_TIP,
    readClaimTip: async () => CLAIM_TIP,
    fenced: (found) => claimMoved(`claim moved to ${found}`, found),
    clock: systemClock,
    deadlineMs: Date.now() + 10_000,
    pollMs: 10,
    ...over,
  };
}

describe('pull requests', () => {
  it('opens a pull request when none is open for the branch, sending title, body, head and base', async () => {
    stubListPulls([]);
    gh.stub.on({
      method: 'POST',
      path: PULLS,
      assert: (r) => expect(r.body).toEqual({ title: 'T', body: 'B', head: BRANCH, base: 'main' }),
      reply: { status: 201, body: restPull({ ...PR, branch: BRANCH, title: 'T', body: 'B' }) },
    });
    const pr = await findOrOpenPullRequest(client(), { owner: OWNER, repo: REPO, head: BRANCH, base: 'main', title: 'T', body: 'B' });
    expect(pr).toMatchObject({ number: 7, id: 'PR_node7', headOid: HEAD, action: 'opened' });
  });

  it('updates the open pull request only when its title or body changed', async () => {
    stubListPulls([restPull({ ...PR, branch: BRANCH, title: 'old', body: null })]);
    gh.stub.on({
      method: 'PATCH',
      path: `${PULLS}/7`,
      assert: (r) => expect(r.body).toEqual({ title: 'new', body: 'B' }),
      reply: { body: restPull({ ...PR, branch: BRANCH, title: 'new', body: 'B' }) },
    });
    const input = { owner: OWNER, repo: REPO, head: BRANCH, base: 'main', title: 'new', body: 'B' };
    expect((await findOrOpenPullRequest(client(), input)).action).toBe('updated');
    gh.stub.verify();
    stubListPulls([restPull({ ...PR, branch: BRANCH, title: 'new', body: 'B' })]);
    expect((await findOrOpenPullRequest(client(), input)).action).toBe('found'); // no PATCH stub: none sent
  });
});

describe('errors become named refusals', () => {
  it('an expired token (401) is UnsafeEnvironment, exit 7', async () => {
    gh.stub.on({ method: 'GET', path: PULLS, reply: { status: 401, body: { message: 'Bad credentials' } } });
    const e = await refusal(
      findOrOpenPullRequest(client(), { owner: OWNER, repo: REPO, head: BRANCH, base: 'main', title: 't', body: 'b' }),
      UnsafeEnvironment,
    );
    expect(e.exit).toBe(7);
    expect(e.data).toMatchObject({ reason: 'token-rejected', status: 401 });
  });

  it('a 5xx on a write is RemoteUnavailable, exit 8, outcome unknown', async () => {
    stubListPulls([]);
    gh.stub.on({ method: 'POST', path: PULLS, reply: { status: 502, body: { message: 'Server Error' } } });
    const e = await refusal(
      findOrOpenPullRequest(client(), { owner: OWNER, repo: REPO, head: BRANCH, base: 'main', title: 't', body: 'b' }),
      RemoteUnavailable,
    );
    expect(e.exit).toBe(8);
    expect(e.data).toMatchObject({ outcome: 'unknown', status: 502 });
  });

  it('a 5xx on a read is RemoteUnavailable with outcome unchanged', async () => {
    gh.stub.on({ method: 'GET', path: PULLS, reply: { status: 503, body: 'upstream down' } });
    const e = await refusal(
      findOrOpenPullRequest(client(), { owner: OWNER, repo: REPO, head: BRANCH, base: 'main', title: 't', body: 'b' }),
      RemoteUnavailable,
    );
    expect(e.data.outcome).toBe('unchanged');
  });

  it('a primary rate limit is exit 8 "rate-limited" naming when it resets', async () => {
    const resetS = Math.floor(Date.now() / 1000) + 600;
    const resetIso = new Date(resetS * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    gh.stub.on({
      method: 'GET',
      path: PULLS,
      reply: {
        status: 403,
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(resetS) },
        body: { message: 'API rate limit exceeded' },
      },
    });
    const e = await refusal(
      findOrOpenPullRequest(client(), { owner: OWNER, repo: REPO, head: BRANCH, base: 'main', title: 't', body: 'b' }),
      RemoteUnavailable,
    );
    expect(e.exit).toBe(8);
    expect(e.data).toMatchObject({ reason: 'rate-limited', limit: 'primary', resetAt: resetIso, outcome: 'unchanged' });
    expect(e.message).toContain(resetIso);
  });

  it('a secondary rate limit (403 with the message and retry-after) waits what GitHub asks', async () => {
    gh.stub.on({
      method: 'PUT',
      path: `${PULLS}/7/merge`,
      reply: { status: 403, headers: { 'retry-after': '120' }, body: { message: 'You have exceeded a secondary rate limit.' } },
    });
    const before = Date.now();
    const e = await refusal(merge(client(), { owner: OWNER, repo: REPO, number: 7, sha: HEAD, method: 'merge' }), RemoteUnavailable);
    expect(e.data).toMatchObject({ reason: 'rate-limited', limit: 'secondary', outcome: 'unchanged' });
    const at = Date.parse(String(e.data.resetAt));
    expect(at).toBeGreaterThanOrEqual(before + 119_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 121_000);
  });
});

describe('landing operations', () => {
  it('merge names the expected head; a 409 (head moved) is ForgeRejected head-moved naming that sha', async () => {
    gh.stub.on({
      method: 'PUT',
      path: `${PULLS}/7/merge`,
      assert: (r) => expect(r.body).toEqual({ sha: HEAD, merge_method: 'merge' }),
      reply: { status: 409, body: { message: 'Head branch was modified. Review and try the merge again.' } },
    });
    const e = await refusal(merge(client(), { owner: OWNER, repo: REPO, number: 7, sha: HEAD, method: 'merge' }), ForgeRejected);
    expect(e.exit).toBe(3);
    expect(e.data).toMatchObject({ reason: 'head-moved', expectedHead: HEAD, number: 7 });
    expect(e.message).toContain(HEAD);
  });

  it('enqueue sends the pull request node id and the expected head', async () => {
    gh.stub.on({
      method: 'POST',
      path: '/graphql',
      operation: 'AbcdEnqueue',
      assert: (r) => expect((r.body as { variables: unknown }).variables).toEqual({ pullRequestId: 'PR_node7', expectedHeadOid: HEAD }),
      reply: { body: { data: { enqueuePullRequest: { mergeQueueEntry: { id: 'MQE_1', state: 'QUEUED', position: 2 } } } } },
    });
    expect(await enqueue(client(), { pullRequestId: 'PR_node7', expectedHeadOid: HEAD })).toEqual({
      entryId: 'MQE_1',
      state: 'QUEUED',
      position: 2,
    });
  });

  it('waitForMerge refuses with DeadlineReached (exit 4) within one poll of the deadline', async () => {
    stubState({ isInMergeQueue: true, mergeQueueEntry: { state: 'AWAITING_CHECKS' } }, 'many');
    const waitMs = 400;
    const started = Date.now();
    const e = await refusal(
      waitForMerge(client(), {
        owner: OWNER,
        repo: REPO,
        number: 7,
        deadlineMs: started + waitMs,
        pollMs: 50,
        clock: systemClock,
        queued: true,
      }),
      DeadlineReached,
    );
    const elapsed = Date.now() - started;
    expect(e.exit).toBe(4);
    expect(elapsed).toBeGreaterThanOrEqual(waitMs);
    // Slack: one poll plus timers that fire late on a loaded machine (no process start-up in it).
    expect(elapsed).toBeLessThan(waitMs + 3000);
    expect(e.data).toMatchObject({ number: 7, waitedOn: 'pull request #7', inMergeQueue: true });
    expect(e.message).toMatch(/waited \d+(\.\d)?(ms|s) for pull request #7/);
  });

  it('waitForMerge refuses a pull request that left the queue unmerged (dequeued)', async () => {
    // Two sightings in a row refuse; a read that fails on a loaded machine costs one more, so
    // the stub answers as often as asked.
    stubState({ isInMergeQueue: false }, 'many');
    const e = await refusal(
      waitForMerge(client(), {
        owner: OWNER,
        repo: REPO,
        number: 7,
        deadlineMs: Date.now() + 5000,
        pollMs: 10,
        clock: systemClock,
        queued: true,
      }),
      ForgeRejected,
    );
    expect(e.data).toMatchObject({ reason: 'dequeued', number: 7 });
  });
});

describe('mergeOnGithub', () => {
  it('merge queue: re-reads the claim after reading the PR, enqueues with the expected head, waits for the merge', async () => {
    const order: string[] = [];
    stubListPulls([restPull({ ...PR, branch: BRANCH })]);
    stubState({}, 1);
    gh.stub.on({
      method: 'POST',
      path: '/graphql',
      operation: 'AbcdEnqueue',
      assert: (r) => {
        order.push('enqueue');
        expect((r.body as { variables: { expectedHeadOid: string } }).variables.expectedHeadOid).toBe(HEAD);
      },
      reply: { body: { data: { enqueuePullRequest: { mergeQueueEntry: { id: 'MQE_1', state: 'QUEUED' } } } } },
    });
    gh.stub.on({
      method: 'POST',
      path: '/graphql',
      operation: 'AbcdPullRequestState',
      reply: (_r, n) => ({
        body: pullStateAnswer(PR, n < 2 ? { isInMergeQueue: true } : { state: 'MERGED', merged: true, mergeCommit: { oid: MERGE_COMMIT } }),
      }),
      times: 2,
    });
    const result = await mergeOnGithub(
      landInput({
        readClaimTip: async () => {
          order.push(`reread after ${gh.stub.requests.length} requests`);
          return CLAIM_TIP;
        },
      }),
    );
    expect(result).toMatchObject({ number: 7, mergeCommit: MERGE_COMMIT, via: 'merge-queue', pullRequest: 'found' });
    expect(order).toEqual(['reread after 2 requests', 'enqueue']); // list, state, then re-read, then enqueue
    expect(gh.stub.calls('PUT', `${PULLS}/7/merge`)).toHaveLength(0);
  });

  it('no merge queue: merges over REST with the expected head as sha', async () => {
    stubListPulls([restPull({ ...PR, branch: BRANCH })]);
    stubState({ isMergeQueueEnabled: false });
    gh.stub.on({
      method: 'PUT',
      path: `${PULLS}/7/merge`,
      assert: (r) => expect(r.body).toEqual({ sha: HEAD, merge_method: 'squash' }),
      reply: { body: { merged: true, sha: MERGE_COMMIT, message: 'Pull Request successfully merged' } },
    });
    const result = await mergeOnGithub(landInput({ mergeMethod: 'squash' }));
    expect(result).toMatchObject({ number: 7, mergeCommit: MERGE_COMMIT, via: 'merge' });
    expect(gh.stub.calls('POST', '/graphql', 'AbcdEnqueue')).toHaveLength(0);
  });

  it('a claim tip that moved calls the fenced callback and enqueues nothing', async () => {
    stubListPulls([restPull({ ...PR, branch: BRANCH })]);
    stubState();
    const seen: string[] = [];
    const e = await refusal(
      mergeOnGithub(
        landInput({
          readClaimTip: async () => OTHER_HEAD,
          fenced: (found) => {
            seen.push(found);
            return claimMoved('claim moved', found);
          },
        }),
      ),
      Fenced,
    );
    expect(e.exit).toBe(5);
    expect(seen).toEqual([OTHER_HEAD]);
    expect(gh.stub.calls('POST', '/graphql', 'AbcdEnqueue')).toHaveLength(0);
    expect(gh.stub.calls('PUT', `${PULLS}/7/merge`)).toHaveLength(0);
  });

  it('a refused enqueue whose pull request has another head is head-moved', async () => {
    stubListPulls([restPull({ ...PR, branch: BRANCH })]);
    stubState();
    stubRefusedEnqueue();
    gh.stub.on({
      method: 'POST',
      path: '/graphql',
      operation: 'AbcdPullRequestState',
      reply: { body: pullStateAnswer({ number: 7, head: OTHER_HEAD }) },
    });
    const e = await refusal(mergeOnGithub(landInput()), ForgeRejected);
    expect(e.data).toMatchObject({ reason: 'head-moved', expectedHead: HEAD });
  });

  it("a refused enqueue whose pull request cannot be read again is GitHub's own refusal", async () => {
    stubListPulls([restPull({ ...PR, branch: BRANCH })]);
    stubState();
    stubRefusedEnqueue();
    gh.stub.on({ method: 'POST', path: '/graphql', operation: 'AbcdPullRequestState', reply: { status: 502, body: {} }, times: 'many' });
    const e = await refusal(mergeOnGithub(landInput()), ForgeRejected);
    expect(e.data.reason).not.toBe('head-moved');
    expect(e.message).toContain('Pull request is not mergeable');
  });

  it('a 5xx on the enqueue is exit 8 with outcome unknown', async () => {
    stubListPulls([restPull({ ...PR, branch: BRANCH })]);
    stubState();
    gh.stub.on({ method: 'POST', path: '/graphql', operation: 'AbcdEnqueue', reply: { status: 500, body: { message: 'Internal' } } });
    const e = await refusal(mergeOnGithub(landInput()), RemoteUnavailable);
    expect(e.data.outcome).toBe('unknown');
  });

  it('reads failing while the pull request is queued say the outcome is unknown', async () => {
    stubListPulls([restPull({ ...PR, branch: BRANCH })]);
    stubState({ isInMergeQueue: true }); // queued by an earlier run: no enqueue again
    gh.stub.on({ method: 'POST', path: '/graphql', operation: 'AbcdPullRequestState', reply: { status: 502, body: {} }, times: 3 });
    const e = await refusal(mergeOnGithub(landInput()), RemoteUnavailable);
    expect(e.data).toMatchObject({ outcome: 'unknown', number: 7 });
    expect(e.message).toContain('may still merge');
  });
});
