// Permissions that match the work: a key-only App's installation token carries `issues: write`
// exactly when the repository's items are GitHub issues, and a token without it meets GitHub's
// 403 (the stub answers an issue write the way GitHub does), which abcd names: the missing
// permission, where to grant it, and that the installation must accept it.
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registrationSteps } from '../../src/forges/github/credentials/app-registration.js';
import { systemClock } from '../../src/core/deps.js';
import { GitHubClient } from '../../src/forges/github/client.js';
import { createIssueComment } from '../../src/forges/github/issues.js';
import { KeptAnswers } from '../../src/forges/github/kept-answers.js';
import { GitHubIssueSource } from '../../src/forges/github/issue-source.js';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';
import { GitHubIssuesFake } from '../harness/github-issues.js';
import { startGitHubRemote, type GitHubRemote } from '../harness/github-remote.js';
import { GitHubStub } from '../harness/github-stub.js';

const TOKEN = 'ghs_issuesPermissionTest0123456789abcdef';
const expires = () => new Date(Date.now() + 3_600_000).toISOString();

describe('installation tokens with issues exactly when items are GitHub issues', () => {
  let gh: GitHubRemote;
  beforeAll(async () => {
    gh = await startGitHubRemote(TOKEN);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await writeFile(join(gh.config, 'app-key.pem'), privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
    await writeFile(join(gh.config, 'app.json'), JSON.stringify({ v: 1, appId: '4242', keyFile: 'app-key.pem' }) + '\n', { mode: 0o600 });
  });
  afterAll(async () => {
    await gh.stop();
    await cleanupTemp();
  });

  it('closing an issue item mints a token with issues: write, and the stub lets it comment and close', async () => {
    const { stub, owner, repo } = gh;
    // main says the items are this repository's issues (pushed straight into the bare repository).
    const seed = join(await tempDir('seed'), 'seed');
    const env = isolatedEnv(seed);
    await git(gh.remote.dir, ['clone', '-q', gh.remote.dir, seed], env);
    await mkdir(join(seed, '.abcd'), { recursive: true });
    await writeFile(join(seed, '.abcd/config.json'), JSON.stringify({ items: { github: { repo: `${owner}/${repo}` } } }));
    await git(seed, ['add', '.'], env);
    await git(seed, ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'issues are items'], env);
    await git(seed, ['push', '-q', 'origin', 'HEAD:main'], env);
    const s = await gh.session('closer');
    stub.on({
      method: 'GET',
      path: `/repos/${owner}/${repo}/installation`,
      reply: { body: { id: 42, app_slug: 'abcd-lanes' } },
      times: 'many',
    });
    stub.on({
      method: 'POST',
      path: '/app/installations/42/access_tokens',
      reply: { status: 201, body: { token: TOKEN, expires_at: expires() } },
      times: 'many',
    });
    const issues = new GitHubIssuesFake(stub, owner, repo);
    issues.add({ number: 5, title: 'Five', labels: ['abcd:ready'] });
    issues.serveIssue(5);
    issues.acceptComment(5);
    issues.acceptUpdate(5);
    const r = await s.abcd(['items', 'close', 'github:issue:5', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(issues.issues.get(5)!.state).toBe('closed');
    const mints = stub.calls('POST', '/app/installations/42/access_tokens').map((q) => (q.body as { permissions: unknown }).permissions);
    // The token the issue calls carried was minted with issues: write; git's own never needs it.
    expect(mints.at(-1)).toEqual({ contents: 'write', pull_requests: 'write', metadata: 'read', issues: 'write' });
    stub.verify();
  }, 60_000);
});

describe("GitHub's 403 for a token without issues: write", () => {
  let stub: GitHubStub;
  beforeAll(async () => {
    stub = await GitHubStub.start();
  });
  afterAll(async () => {
    await stub.stop();
    await cleanupTemp();
  });

  it('names the missing permission, the App settings and the installation, and the close warning carries it', async () => {
    // A token minted the way lanes minted them before: no issues permission.
    const token = 'canary-token-without-issues-permission';
    stub.on({ method: 'POST', path: '/app/installations/7/access_tokens', reply: { status: 201, body: { token, expires_at: expires() } } });
    await fetch(`${stub.url}/app/installations/7/access_tokens`, {
      method: 'POST',
      body: JSON.stringify({ repositories: ['widgets'], permissions: { contents: 'write', pull_requests: 'write', metadata: 'read' } }),
    });
    const client = new GitHubClient({ restUrl: stub.url, token: () => Promise.resolve(token), clock: systemClock });
    const api = { client, kept: new KeptAnswers(await tempDir('kept')), owner: 'octo', repo: 'widgets' };
    const e = await createIssueComment(api, 3, 'hello').catch((x: unknown) => x);
    expect(e).toMatchObject({
      code: 'unsafe-environment',
      exit: 7,
      data: { status: 403, reason: 'forbidden', permission: 'issues=write' },
    });
    const message = (e as Error).message;
    expect(message).toContain('lacks the issues: write permission');
    expect(message).toContain('Repository permissions → Issues: Read and write');
    expect(message).toContain("accept the new permissions on the App's installation");
    // The landing that could not close its issue says why, never that the work will be redone.
    const gh = new GitHubIssuesFake(stub, 'octo', 'widgets');
    gh.add({ number: 8, title: 'Red', labels: ['abcd:ready'] });
    const source = new GitHubIssueSource({ api, labels: ['abcd:ready'], exclude: [], priority: [] });
    const r = await source.markDone({ source: 'github', kind: 'issue', id: '8' }, { commit: 'c'.repeat(40), main: 'main' });
    expect(r.warning).toMatch(/^landed, but issue #8 could not be closed: .*lacks the issues: write permission/);
    expect(r.warning).not.toMatch(/built again/);
    stub.verify();
  });

  it('abcd setup-app asks for Issues: Read and write when items come from GitHub, and says why', () => {
    const withIssues = registrationSteps('https://github.com', { issues: true }).join('\n');
    expect(withIssues).toMatch(/Issues: Read and write \(.*comment on, close and list.*\)/);
    const without = registrationSteps('https://github.com', { issues: false }).join('\n');
    expect(without).not.toContain('Issues:');
  });
});
