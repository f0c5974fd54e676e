// abcd land on a GitHub remote, end to end through bin/abcd: git over a real smart-HTTP server
// that demands the App token (sent only through abcd's credential channel), the REST/GraphQL
// calls against a local stub that checks every stub was used.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { bearerDigest, pullStateAnswer, restPull, type GitHubStub } from '../harness/github-stub.js';
import type { HttpGitServer } from '../harness/http-server.js';
import { writeRawRecord, type BareRemote } from '../harness/remote.js';
import type { Session } from '../harness/session.js';
import { startGitHubRemote, type GitHubRemote } from '../harness/github-remote.js';

const TOKEN = 'ghu_landTestToken0123456789abcdefABCDEF';
const MERGE_COMMIT = 'e'.repeat(40);

describe('land on GitHub', () => {
  let remote: BareRemote;
  let server: HttpGitServer;
  let stub: GitHubStub;
  let owner: string;
  let repo: string;
  let a: Session;

  let gh: GitHubRemote;

  beforeAll(async () => {
    gh = await startGitHubRemote(TOKEN);
    ({ remote, server, stub, owner, repo } = gh);
    await writeFile(join(gh.config, 'app.json'), JSON.stringify({ v: 1, appId: 1, clientId: 'Iv1.test' }), { mode: 0o600 });
    await writeFile(
      join(gh.config, 'user-token.json'),
      JSON.stringify({ v: 1, token: TOKEN, expiresAt: Date.now() + 8 * 3_600_000, refreshToken: 'ghr_refresh', login: 'person' }),
      { mode: 0o600 },
    );
    a = await gh.session('ada');
  });
  afterEach(() => {
    try {
      stub.verify();
      for (const r of stub.requests) expect(r.authorization).toBe(bearerDigest(TOKEN));
    } finally {
      stub.reset();
    }
  });
  afterAll(async () => {
    await gh.stop();
    await cleanupTemp();
  });

  it('pushes through the channel, opens the pull request, enqueues with the expected head, and marks the claim done', async () => {
    expect((await a.abcd(['reserve', 'gh-item'])).code).toBe(0);
    await a.git(['checkout', '-q', '-b', 'work/gh-item']);
    const head = await a.commit('gh.txt', 'github\n');
    const pulls = `/repos/${owner}/${repo}/pulls`;
    stub.on({ method: 'GET', path: pulls, query: { head: `${owner}:work/gh-item`, state: 'open' }, reply: { body: [] } });
    stub.on({
      method: 'POST',
      path: pulls,
      assert: (r) => expect(r.body).toMatchObject({ head: 'work/gh-item', base: 'main' }),
      reply: { status: 201, body: restPull({ number: 7, head, branch: 'work/gh-item' }) },
    });
    stub.on({
      method: 'POST',
      path: '/graphql',
      operation: 'AbcdPullRequestState',
      times: 'many',
      // The stub counts from 1: the first read is before the enqueue, every later one sees it merged.
      reply: (_r, n) => ({
        body: pullStateAnswer({ number: 7, head }, n === 1 ? {} : { state: 'MERGED', merged: true, mergeCommit: { oid: MERGE_COMMIT } }),
      }),
    });
    stub.on({
      method: 'POST',
      path: '/graphql',
      operation: 'AbcdEnqueue',
      assert: (r) => expect((r.body as { variables: unknown }).variables).toEqual({ pullRequestId: 'PR_node7', expectedHeadOid: head }),
      reply: { body: { data: { enqueuePullRequest: { mergeQueueEntry: { id: 'MQE_1', state: 'QUEUED', position: 1 } } } } },
    });
    const r = await a.abcd(['land', 'gh-item', '--json', '--wait', '60s']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ tip: MERGE_COMMIT, state: 'done', github: { number: 7, via: 'merge-queue' } });
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    const refs = await remote.refs();
    expect(refs.get('refs/heads/work/gh-item')).toBe(head);
    const status = await a.abcd(['status', '--json']);
    expect(status.json.claims.find((c: { item: string }) => c.item === 'gh-item')).toMatchObject({
      state: 'done',
      landed: { tip: MERGE_COMMIT },
    });
    const pushes = (await server.requests()).filter((q) => q.path.endsWith('git-receive-pack') && q.method === 'POST');
    expect(pushes.length).toBeGreaterThan(0);
    expect(pushes.every((q) => q.user === 'x-access-token' && q.authorized)).toBe(true);
  });

  it('--strategy squash without a merge queue: the REST merge uses the squash method', async () => {
    expect((await a.abcd(['reserve', 'gh-squash'])).code).toBe(0);
    await a.git(['checkout', '-q', '-b', 'work/gh-squash']);
    const head = await a.commit('squash.txt', 'one commit\n');
    const pulls = `/repos/${owner}/${repo}/pulls`;
    stub.on({ method: 'GET', path: pulls, query: { head: `${owner}:work/gh-squash`, state: 'open' }, reply: { body: [] } });
    stub.on({ method: 'POST', path: pulls, reply: { status: 201, body: restPull({ number: 9, head, branch: 'work/gh-squash' }) } });
    stub.on({
      method: 'POST',
      path: '/graphql',
      operation: 'AbcdPullRequestState',
      reply: { body: pullStateAnswer({ number: 9, head }, { isMergeQueueEnabled: false }) },
    });
    stub.on({
      method: 'PUT',
      path: `${pulls}/9/merge`,
      assert: (r) => expect(r.body).toEqual({ sha: head, merge_method: 'squash' }),
      reply: { body: { merged: true, sha: MERGE_COMMIT, message: 'Pull Request successfully merged' } },
    });
    const r = await a.abcd(['land', 'gh-squash', '--strategy', 'squash', '--json', '--wait', '60s']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ tip: MERGE_COMMIT, state: 'done', github: { number: 9, via: 'merge' } });
  });

  it('a claim taken over just before the enqueue is fenced (exit 5) and nothing is enqueued', async () => {
    expect((await a.abcd(['reserve', 'gh-fenced'])).code).toBe(0);
    await a.git(['checkout', '-q', '-b', 'work/gh-fenced']);
    const head = await a.commit('fenced.txt', 'x\n');
    const pulls = `/repos/${owner}/${repo}/pulls`;
    stub.on({
      method: 'GET',
      path: pulls,
      query: { head: `${owner}:work/gh-fenced`, state: 'open' },
      reply: { body: [restPull({ number: 8, head, branch: 'work/gh-fenced', title: 'gh-fenced', body: null })] },
    });
    stub.on({
      method: 'PATCH',
      path: `${pulls}/8`,
      reply: { body: restPull({ number: 8, head, branch: 'work/gh-fenced', title: 'gh-fenced' }) },
    });
    // While GitHub answers the state read, another session takes the claim over on the remote;
    // the answer waits until that write is done, so the land reads the remote after it.
    const ref = 'refs/heads/abcd/claims/local/item/gh-fenced';
    stub.on({
      method: 'POST',
      path: '/graphql',
      operation: 'AbcdPullRequestState',
      reply: async () => {
        await writeRawRecord(
          remote.dir,
          ref,
          JSON.stringify({
            abcd: 'claim',
            v: 1,
            item: 'local:item:gh-fenced',
            state: 'held',
            holder: { person: 'bo@example.com', host: 'h', session: 'bo' },
            gen: 9,
            at: Date.now(),
            ttl: 3_600_000,
          }),
        );
        return { body: pullStateAnswer({ number: 8, head }) };
      },
    });
    const r = await a.abcd(['land', 'gh-fenced', '--json', '--wait', '30s']);
    expect(r.code, r.stdout + r.stderr).toBe(5);
    expect(r.json.refusal).toMatchObject({ code: 'fenced', data: { item: 'gh-fenced' } });
    expect(stub.requests.some((q) => q.operation === 'AbcdEnqueue')).toBe(false);
  });

  it("a change under .github/workflows without the App's workflows permission is refused (exit 7) before any push", async () => {
    expect((await a.abcd(['reserve', 'gh-workflow'])).code).toBe(0);
    await a.git(['checkout', '-q', '-b', 'work/gh-workflow', 'main']);
    await mkdir(join(a.dir, '.github/workflows'), { recursive: true });
    await a.commit('.github/workflows/ci.yml', 'on: push\n');
    const before = await remote.refs();
    const r = await a.abcd(['land', 'gh-workflow', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(7);
    expect(r.json.refusal).toMatchObject({
      code: 'unsafe-environment',
      data: { reason: 'workflows-permission', paths: ['.github/workflows/ci.yml'] },
    });
    expect(await remote.refs()).toEqual(before);
  });

  it('without an App token set up, git has no credential for the forge: exit 7 naming setup-app, nothing written', async () => {
    const before = await remote.refs();
    const r = await a.abcd(['reserve', 'no-token', '--json'], { env: { ABCD_CONFIG_DIR: await tempDir('empty-config') } });
    expect(r.code, r.stdout + r.stderr).toBe(7);
    expect(r.json.refusal).toMatchObject({ code: 'unsafe-environment', data: { outcome: 'unchanged' } });
    expect(r.json.refusal.message).toContain('abcd setup-app');
    expect(await remote.refs()).toEqual(before);
  });
});
