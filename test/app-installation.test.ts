// A CI job's App has only its id and key (the workflow `abcd init --ci github` writes): git's
// pushes carry an installation token minted from the key for the one repository, through abcd's
// credential channel. The person's device-flow token is neither needed nor asked for.
import { generateKeyPairSync } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from './harness/git-env.js';
import { GitHubStub } from './harness/github-stub.js';
import { startHttpGitServer, type HttpGitServer } from './harness/http-server.js';
import { makeRemote, type BareRemote } from './harness/remote.js';
import { makeSession } from './harness/session.js';

const TOKEN = 'ghs_installationTestToken0123456789abcdef';

describe('a key-only App (a CI job)', () => {
  let remote: BareRemote;
  let server: HttpGitServer;
  let stub: GitHubStub;
  let owner: string;
  let repo: string;
  let config: string;

  beforeAll(async () => {
    remote = await makeRemote();
    owner = basename(dirname(remote.dir));
    repo = basename(remote.dir).replace(/\.git$/, '');
    server = await startHttpGitServer({ root: dirname(dirname(remote.dir)), auth: { user: 'x-access-token', password: TOKEN } });
    stub = await GitHubStub.start();
    config = await tempDir('abcd-config');
    await chmod(config, 0o700);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await writeFile(join(config, 'app-key.pem'), privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
    // Exactly what the generated workflow writes: no clientId, no user token.
    await writeFile(join(config, 'app.json'), JSON.stringify({ v: 1, appId: '4242', keyFile: 'app-key.pem' }) + '\n', { mode: 0o600 });
  });
  afterAll(async () => {
    await stub.stop();
    await server.stop();
    await cleanupTemp();
  });

  it('reserves through the channel with an installation token for this repository only', async () => {
    const url = server.url(`${owner}/${basename(remote.dir)}`);
    // The clone is made with the token in the URL; from then on git has no credential of its own.
    const s = await makeSession(url.replace('http://', `http://x-access-token:${TOKEN}@`), 'ci', {
      env: { ABCD_CONFIG_DIR: config, ABCD_GITHUB_HOSTS: '127.0.0.1', ABCD_GITHUB_API_URL: stub.url, ABCD_GITHUB_GRAPHQL_URL: stub.graphqlUrl },
    });
    await s.git(['remote', 'set-url', 'origin', url]);
    stub.on({ method: 'GET', path: `/repos/${owner}/${repo}/installation`, reply: { body: { id: 42, app_slug: 'abcd-lanes' } } });
    stub.on({
      method: 'POST',
      path: '/app/installations/42/access_tokens',
      // Limited to the one repository and what a lane needs.
      assert: (r) => expect(r.body).toEqual({ repositories: [repo], permissions: { contents: 'write', pull_requests: 'write', metadata: 'read' } }),
      reply: { status: 201, body: { token: TOKEN, expires_at: new Date(Date.now() + 3_600_000).toISOString() } },
    });
    const r = await s.abcd(['reserve', 'ci-item', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    stub.verify();
    expect((await remote.refs()).get('refs/heads/abcd/claims/local/item/ci-item')).toBe(r.json.claimTip);
    const pushes = (await server.requests()).filter((q) => q.path.endsWith('git-receive-pack') && q.method === 'POST');
    expect(pushes.length).toBeGreaterThan(0);
    expect(pushes.every((q) => q.user === 'x-access-token' && q.authorized)).toBe(true);
  });
});
