// An issue item landed on the GitHub strategy: a drain on a GitHub remote whose issues are its
// items (items.github with the repository left to default) builds a labelled issue, opens the
// pull request saying `Closes #<n>`, lands it through the merge queue, and the issue ends closed
// with one comment naming the landed commit.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv, QUIET_CONFIG, tempDir } from '../harness/git-env.js';
import { GitHubIssuesFake } from '../harness/github-issues.js';
import { bearerDigest, pullStateAnswer, restPull } from '../harness/github-stub.js';
import { startGitHubRemote, type GitHubRemote } from '../harness/github-remote.js';

const TOKEN = 'canary-person-token-issue-land';
const MERGE_COMMIT = 'd'.repeat(40);

async function seedConfig(gh: GitHubRemote, config: unknown): Promise<void> {
  const root = await tempDir('seed');
  const env = isolatedEnv(root);
  const seed = join(root, 'seed');
  await git(root, ['clone', '-q', gh.remote.dir, seed], env);
  for (const [k, v] of QUIET_CONFIG) await git(seed, ['config', k, v], env);
  await mkdir(join(seed, '.abcd'), { recursive: true });
  await writeFile(join(seed, '.abcd/config.json'), JSON.stringify(config));
  await git(seed, ['add', '.'], env);
  await git(seed, ['commit', '-q', '-m', 'config'], env);
  await git(seed, ['push', '-q', 'origin', 'main'], env);
}

describe('an issue landed on the GitHub strategy', () => {
  let gh: GitHubRemote;

  beforeAll(async () => {
    gh = await startGitHubRemote(TOKEN);
    await writeFile(join(gh.config, 'app.json'), JSON.stringify({ v: 1, appId: 1, clientId: 'Iv1.test' }), { mode: 0o600 });
    await writeFile(
      join(gh.config, 'user-token.json'),
      JSON.stringify({ v: 1, token: TOKEN, expiresAt: Date.now() + 8 * 3_600_000, refreshToken: 'ghr_refresh', login: 'person' }),
      { mode: 0o600 },
    );
  });
  afterAll(async () => {
    await gh.stop();
    await cleanupTemp();
  });

  it('a drain opens the pull request with Closes #n, lands it, and the issue ends closed with one comment', async () => {
    const { stub, owner, repo } = gh;
    await seedConfig(gh, { items: { github: {} } });
    const issues = new GitHubIssuesFake(stub, owner, repo);
    issues.add({ number: 12, title: 'Add a changelog', body: 'Keep a CHANGELOG.md.', labels: ['abcd:ready'] });
    issues.serveListing();
    issues.serveComments(12);
    issues.acceptComment(12);
    issues.acceptUpdate(12);
    const pulls = `/repos/${owner}/${repo}/pulls`;
    let head = '';
    stub.on({ method: 'GET', path: pulls, reply: { body: [] } });
    stub.on({
      method: 'POST',
      path: pulls,
      assert: (r) => expect((r.body as { body: string }).body).toMatch(/\n\nCloses #12$/),
      // The work branch is on the remote by now (pushed fenced before the pull request opens).
      reply: async (r) => {
        const b = r.body as { head: string; title: string; body: string };
        head = (await gh.remote.refs()).get(`refs/heads/${b.head}`) ?? '';
        return { status: 201, body: restPull({ number: 31, head, branch: b.head, title: b.title, body: b.body }) };
      },
    });
    stub.on({
      method: 'POST',
      path: '/graphql',
      operation: 'AbcdPullRequestState',
      times: 'many',
      reply: (_r, n) => ({
        body: pullStateAnswer({ number: 31, head }, n === 1 ? {} : { state: 'MERGED', merged: true, mergeCommit: { oid: MERGE_COMMIT } }),
      }),
    });
    stub.on({
      method: 'POST',
      path: '/graphql',
      operation: 'AbcdEnqueue',
      reply: { body: { data: { enqueuePullRequest: { mergeQueueEntry: { id: 'MQE_1', state: 'QUEUED', position: 1 } } } } },
    });
    const s = await gh.session('lane');
    const agent = 'echo "# Changelog" > CHANGELOG.md && git add CHANGELOG.md && git commit -qm "agent: $ABCD_ITEM"';
    const r = await s.abcd(['drain', '--lifecycle', 'once', '--json', '--agent', agent], { timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.record.cycles).toMatchObject([{ item: 'github:issue:12', outcome: 'landed', landed: MERGE_COMMIT }]);
    expect(issues.issues.get(12)!.state).toBe('closed');
    const mine = issues.comments.filter((c) => c.bot);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toContain(MERGE_COMMIT);
    expect(mine[0]!.body).toContain('pull request #31');
    stub.verify();
    for (const q of stub.requests) expect(q.authorization).toBe(bearerDigest(TOKEN));
  }, 150_000);
});
