// The GitHub issue source in process against the stub: a listing that lags the source's own
// close does not make landed work ready again (a later reopen does), body lines name what an
// issue depends on, and a 304 with nothing kept is garbage, never an empty listing.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/deps.js';
import { GitHubClient } from '../../src/forges/github/client.js';
import { dependsOnInBody, listOpenIssues } from '../../src/forges/github/issues.js';
import { KeptAnswers } from '../../src/forges/github/kept-answers.js';
import { GitHubIssueSource } from '../../src/forges/github/issue-source.js';
import { actionable } from '../../src/items/readiness.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { GitHubIssuesFake } from '../harness/github-issues.js';
import { GitHubStub } from '../harness/github-stub.js';

describe('the GitHub issue source', () => {
  let stub: GitHubStub;
  beforeAll(async () => {
    stub = await GitHubStub.start();
  });
  afterEach(() => {
    try {
      stub.verify();
    } finally {
      stub.reset();
    }
  });
  afterAll(async () => {
    await stub.stop();
    await cleanupTemp();
  });

  async function api() {
    const client = new GitHubClient({ restUrl: stub.url, token: () => Promise.resolve('ghs_test0123456789'), clock: systemClock });
    return { client, kept: new KeptAnswers(await tempDir('kept')), owner: 'octo', repo: 'widgets' };
  }

  it('an issue it closed stays done while a listing lags; shown again after a listing left it out, it was reopened', async () => {
    const gh = new GitHubIssuesFake(stub, 'octo', 'widgets');
    gh.add({ number: 7, title: 'Blue', labels: ['abcd:ready'] });
    gh.serveListing();
    gh.acceptComment(7);
    // GitHub's listing lags: the close is acknowledged, the issue still listed open.
    stub.on({ method: 'PATCH', path: `${gh.base}/issues/7`, reply: { body: gh.rest(gh.issues.get(7)!) } });
    const source = new GitHubIssueSource({ api: await api(), labels: ['abcd:ready'], exclude: [], priority: [] });
    const keys = async () => (await source.list('tip')).items.map((i) => i.key.id);
    expect(await keys()).toEqual(['7']);
    expect(await source.markDone({ source: 'github', kind: 'issue', id: '7' }, { commit: 'c'.repeat(40), main: 'main' })).toEqual({});
    expect(await keys()).toEqual([]);
    gh.issues.get(7)!.state = 'closed';
    expect(await keys()).toEqual([]);
    gh.issues.get(7)!.state = 'open';
    expect(await keys()).toEqual(['7']);
  });

  it('a close that fails leaves the landing standing and says so', async () => {
    const gh = new GitHubIssuesFake(stub, 'octo', 'widgets');
    gh.add({ number: 8, title: 'Red', labels: ['abcd:ready'] });
    stub.on({
      method: 'POST',
      path: `${gh.base}/issues/8/comments`,
      reply: { status: 403, body: { message: 'Resource not accessible by integration' } },
    });
    const source = new GitHubIssueSource({ api: await api(), labels: ['abcd:ready'], exclude: [], priority: [] });
    const r = await source.markDone({ source: 'github', kind: 'issue', id: '8' }, { commit: 'c'.repeat(40), main: 'main' });
    expect(r.warning).toMatch(/^landed, but issue #8 could not be closed: GitHub forbade POST/);
  });

  it('a run keeps one result comment per issue: a failed cycle writes it, the landing rewrites it in place', async () => {
    const gh = new GitHubIssuesFake(stub, 'octo', 'widgets');
    gh.add({ number: 9, title: 'Teal', labels: ['abcd:ready'] });
    gh.acceptComment(9);
    gh.acceptUpdate(9);
    const source = new GitHubIssueSource({ api: await api(), labels: ['abcd:ready'], exclude: [], priority: [] });
    const key = { source: 'github', kind: 'issue', id: '9' };
    const failed = { runId: 'run-1', outcome: 'failed', code: 'check-failed', reason: 'npm test failed', usage: 1200, durationMs: 42_000 };
    expect(await source.reportOutcome(key, failed)).toEqual({});
    const [made] = gh.comments;
    expect(made!.body).toMatch(
      /^<!-- abcd: lane result -->\nabcd lane run run-1: \*\*failed\*\* \(check-failed\) after 42s, 1200 tokens\.\n\nnpm test failed\n/,
    );
    gh.acceptCommentUpdate(made!.id);
    expect(await source.markDone(key, { commit: 'c'.repeat(40), main: 'main', runId: 'run-1' })).toEqual({});
    expect(gh.comments).toHaveLength(1);
    expect(gh.comments[0]!.body).toContain(`Landed on \`main\` in ${'c'.repeat(40)} (abcd lane run run-1).`);
    expect(gh.issues.get(9)!.state).toBe('closed');
  });

  it('a run whose work changes protected paths says so in its result comment, with the commands for the person', async () => {
    const gh = new GitHubIssuesFake(stub, 'octo', 'widgets');
    gh.add({ number: 10, title: 'Rules', labels: ['abcd:ready'] });
    gh.acceptComment(10);
    const source = new GitHubIssueSource({ api: await api(), labels: ['abcd:ready'], exclude: [], priority: [] });
    const key = { source: 'github', kind: 'issue', id: '10' };
    const held = {
      runId: 'run-2',
      outcome: 'needs-review',
      code: 'needs-review',
      reason: 'the work changes protected paths',
      durationMs: 3000,
      review: { paths: ['.github/workflows/x.yml', '.abcd/config.json'] },
    };
    expect(await source.reportOutcome(key, held)).toEqual({});
    const body = gh.comments[0]!.body;
    expect(body).toContain('**needs-review** (needs-review)');
    expect(body).toContain('`.github/workflows/x.yml`, `.abcd/config.json`');
    expect(body).toContain('`abcd land github:issue:10 --approve run-2`');
    expect(body).not.toContain('retries');
  });

  it('issues with a priority label are taken first, in the order of items.github.priority, then the oldest', async () => {
    const gh = new GitHubIssuesFake(stub, 'octo', 'widgets');
    gh.add({ number: 1, title: 'old', labels: ['abcd:ready'], createdAt: '2026-01-01T00:00:00Z' });
    gh.add({ number: 2, title: 'p1', labels: ['abcd:ready', 'p1'], createdAt: '2026-03-01T00:00:00Z' });
    gh.add({ number: 3, title: 'p0', labels: ['abcd:ready', 'p0'], createdAt: '2026-04-01T00:00:00Z' });
    gh.add({ number: 4, title: 'newer', labels: ['abcd:ready'], createdAt: '2026-02-01T00:00:00Z' });
    gh.serveListing();
    const source = new GitHubIssueSource({ api: await api(), labels: ['abcd:ready'], exclude: [], priority: ['p0', 'p1'] });
    const items = (await source.list('tip')).items;
    expect(actionable(items, new Map(), new Set()).map((i) => i.key.id)).toEqual(['3', '2', '1', '4']);
  });

  it('reads depends on and blocked by lines from a body, nothing else', () => {
    expect(dependsOnInBody('Depends on #12\n- blocked by: #3, #4 and #5\n> depends on #7 & #8')).toEqual([3, 4, 5, 7, 8, 12]);
    expect(dependsOnInBody('This depends on #9 being fixed\nsee #10\n`depends on #11`')).toEqual([]);
    expect(dependsOnInBody(null)).toEqual([]);
  });

  it('a kept answer that is gone, torn, not an object or not a file is no answer: the URL is asked afresh', async () => {
    const dir = await tempDir('kept');
    const kept = new KeptAnswers(dir);
    const url = 'https://api.github.com/repos/octo/widgets/issues';
    expect(await kept.read(url)).toBeUndefined();
    await kept.write({ url, etag: 'W/"1"', body: [] });
    expect(await kept.read(url)).toEqual({ url, etag: 'W/"1"', body: [] });
    const [file] = await readdir(dir);
    for (const text of ['{"url":', 'null', '7', JSON.stringify({ url: 'https://elsewhere', etag: 'W/"1"' })]) {
      await writeFile(join(dir, file!), text);
      expect(await kept.read(url)).toBeUndefined();
    }
    await rm(join(dir, file!));
    await mkdir(join(dir, file!));
    expect(await kept.read(url)).toBeUndefined();
  });

  it('a 304 to a request that sent no ETag is garbage (exit 8), never an empty listing', async () => {
    stub.on({ method: 'GET', path: '/repos/octo/widgets/issues', reply: { status: 304 } });
    const a = await api();
    await expect(listOpenIssues(a, ['abcd:ready'])).rejects.toMatchObject({
      code: 'remote-unavailable',
      data: { status: 304, outcome: 'unchanged' },
    });
  });
});
