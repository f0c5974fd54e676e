// The GitHub client's edges: where it sends, the deadlines, what no answer or a bad answer
// becomes, GraphQL's in-band errors, and the workflows permission check.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/deps.js';
import { githubApiUrls } from '../../src/forges/github/api-urls.js';
import { GitHubClient } from '../../src/forges/github/client.js';
import { pullRequestState } from '../../src/forges/github/pull-requests.js';
import { assertWorkflowPermission } from '../../src/forges/github/workflow-permission.js';
import { DeadlineReached, ForgeRejected, RemoteUnavailable, UnsafeEnvironment, type Refusal } from '../../src/core/refusals.js';
import { useGitHubStub } from '../harness/github-client-stub.js';
import { bearerDigest } from '../harness/github-stub.js';

const TOKEN = 'ghu_clientTestToken0123456789abcdef';
const PULLS = '/repos/octo/widgets/pulls';
const Anything = z.unknown();

const gh = useGitHubStub(TOKEN);
const { client, refusal } = gh;

const getPulls = (c: GitHubClient) => c.rest({ method: 'GET', path: PULLS, what: 'list' }, Anything);
const postPull = (c: GitHubClient) => c.rest({ method: 'POST', path: PULLS, body: {}, what: 'open' }, Anything);

describe('where it sends', () => {
  it('derives REST and GraphQL URLs for github.com, Enterprise Server and ghe.com', () => {
    expect(githubApiUrls('github.com')).toEqual({ rest: 'https://api.github.com', graphql: 'https://api.github.com/graphql' });
    expect(githubApiUrls('git.example.com')).toEqual({
      rest: 'https://git.example.com/api/v3',
      graphql: 'https://git.example.com/api/graphql',
    });
    expect(githubApiUrls('acme.ghe.com')).toEqual({ rest: 'https://api.acme.ghe.com', graphql: 'https://api.acme.ghe.com/graphql' });
    expect(new GitHubClient({ host: 'git.example.com', token: async () => TOKEN, clock: systemClock }).restUrl).toBe(
      'https://git.example.com/api/v3',
    );
  });

  it('asks the token supplier on every call and sends it as a Bearer token', async () => {
    let asked = 0;
    gh.stub.on({ method: 'GET', path: PULLS, reply: { body: [] }, times: 2 });
    const c = client({ token: async () => `${TOKEN}${++asked}` });
    await getPulls(c);
    await getPulls(c);
    expect(gh.stub.requests.map((r) => r.authorization)).toEqual([bearerDigest(`${TOKEN}1`), bearerDigest(`${TOKEN}2`)]);
  });
});

describe('failures', () => {
  it('a malformed token is refused before sending, without quoting it', async () => {
    const e = await refusal(getPulls(client({ token: async () => `${TOKEN}\nx` })), UnsafeEnvironment);
    expect(e.data.reason).toBe('malformed-token');
    expect(gh.stub.requests).toHaveLength(0);
  });

  it('403 without a rate limit is UnsafeEnvironment (a missing permission)', async () => {
    gh.stub.on({ method: 'POST', path: PULLS, reply: { status: 403, body: { message: 'Resource not accessible by integration' } } });
    const e = await refusal(postPull(client()), UnsafeEnvironment);
    expect(e.data).toMatchObject({ reason: 'forbidden', githubMessage: 'Resource not accessible by integration' });
  });

  it('404 is ForgeRejected naming the repository and the App installation', async () => {
    gh.stub.on({ method: 'GET', path: PULLS, reply: { status: 404, body: { message: 'Not Found' } } });
    const e = await refusal(getPulls(client()), ForgeRejected);
    expect(e.data.reason).toBe('not-found');
    expect(e.message).toContain("check the repository and the App's installation");
  });

  it("422 is ForgeRejected carrying GitHub's message and error details", async () => {
    gh.stub.on({
      method: 'POST',
      path: PULLS,
      reply: {
        status: 422,
        body: {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', code: 'custom', message: 'No commits between main and x' }],
        },
      },
    });
    const e = await refusal(postPull(client()), ForgeRejected);
    expect(e.exit).toBe(3);
    expect(e.message).toContain('Validation Failed; No commits between main and x');
  });

  it('no server listening is RemoteUnavailable naming the cause', async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise<void>((r) => s.close(() => r()));
    const e = await refusal(getPulls(client({ restUrl: `http://127.0.0.1:${port}` })), RemoteUnavailable);
    expect(e.data).toMatchObject({ reason: 'unreachable', outcome: 'unchanged' });
    expect(e.message).toContain('ECONNREFUSED');
  });

  it('a call past its own timeout is RemoteUnavailable: unknown for a write', async () => {
    // The answer comes long after the timeout, however late a loaded machine fires the timer.
    gh.stub.on({ method: 'POST', path: PULLS, reply: { body: {}, delayMs: 20_000 } });
    const e = await refusal(postPull(client({ callTimeoutMs: 200 })), RemoteUnavailable);
    expect(e.data).toMatchObject({ reason: 'timeout', outcome: 'unknown' });
  });

  it("the verb's deadline cutting a call short is DeadlineReached; past it, nothing is sent", async () => {
    gh.stub.on({ method: 'GET', path: PULLS, reply: { body: [], delayMs: 20_000 } });
    const e = await refusal(getPulls(client({ deadlineAt: Date.now() + 200 })), DeadlineReached);
    expect(e.data).toMatchObject({ waitedOn: 'GitHub', outcome: 'unchanged' });
    const late = await refusal(getPulls(client({ deadlineAt: Date.now() - 1 })), DeadlineReached);
    expect(late.message).toContain('nothing was sent');
    expect(gh.stub.requests).toHaveLength(1);
  });

  it('a 2xx that is not JSON, or lacks the fields read, is garbage (exit 8)', async () => {
    gh.stub.on({ method: 'GET', path: PULLS, reply: { body: '<html>unicorn</html>' } });
    expect((await refusal(getPulls(client()), RemoteUnavailable)).data).toMatchObject({ reason: 'garbage', outcome: 'unchanged' });
    gh.stub.on({ method: 'POST', path: PULLS, reply: { body: { number: 'seven' } } });
    const e = await refusal(
      client().rest({ method: 'POST', path: PULLS, body: {}, what: 'open' }, z.object({ number: z.number() })),
      RemoteUnavailable,
    );
    expect(e.data).toMatchObject({ reason: 'garbage', outcome: 'unknown' });
  });
});

describe('GraphQL errors in a 200', () => {
  const read = () => pullRequestState(client(), { owner: 'octo', repo: 'widgets', number: 7 });
  const answer = (type: string, message: string) => ({ body: { data: null, errors: [{ type, message }] } });

  it.each([
    ['NOT_FOUND', ForgeRejected, 'not-found'],
    ['FORBIDDEN', UnsafeEnvironment, 'forbidden'],
    ['RATE_LIMITED', RemoteUnavailable, 'rate-limited'],
  ] as const)('%s becomes the matching refusal', async (type, kind, reason) => {
    gh.stub.on({ method: 'POST', path: '/graphql', operation: 'AbcdPullRequestState', reply: answer(type, `${type} says no`) });
    const e = await refusal<Refusal>(read(), kind);
    expect(e.data.reason).toBe(reason);
  });

  it('a missing pull request (null) is not-found', async () => {
    gh.stub.on({
      method: 'POST',
      path: '/graphql',
      operation: 'AbcdPullRequestState',
      reply: { body: { data: { repository: { pullRequest: null } } } },
    });
    expect((await refusal(read(), ForgeRejected)).data.reason).toBe('not-found');
  });
});

describe('workflows permission', () => {
  it('refuses a push touching .github/workflows without the permission, naming the paths', () => {
    let e: unknown;
    try {
      assertWorkflowPermission({
        changedPaths: ['src/a.ts', '.github/workflows/ci.yml'],
        permissions: { contents: 'write', workflows: 'read' },
      });
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(UnsafeEnvironment);
    expect((e as Refusal).exit).toBe(7);
    expect((e as Refusal).data).toMatchObject({ reason: 'workflows-permission', paths: ['.github/workflows/ci.yml'], has: 'read' });
    expect((e as Refusal).message).toContain('"workflows" permission');
  });

  it('lets it pass with workflows: write, or when no workflow changed', () => {
    expect(() =>
      assertWorkflowPermission({ changedPaths: ['.github/workflows/ci.yml'], permissions: { workflows: 'write' } }),
    ).not.toThrow();
    expect(() => assertWorkflowPermission({ changedPaths: ['.github/CODEOWNERS', 'docs/workflows/x.md'], permissions: {} })).not.toThrow();
  });
});
