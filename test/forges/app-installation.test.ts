// A CI job's App has only its id and key (the workflow `abcd init --ci github` writes): git's
// pushes carry an installation token minted from the key for the one repository, through abcd's
// credential channel. The person's device-flow token is neither needed nor asked for.
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { startGitHubRemote, type GitHubRemote } from '../harness/github-remote.js';

const TOKEN = 'ghs_installationTestToken0123456789abcdef';

describe('a key-only App (a CI job)', () => {
  let gh: GitHubRemote;

  beforeAll(async () => {
    gh = await startGitHubRemote(TOKEN);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await writeFile(join(gh.config, 'app-key.pem'), privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
    // Exactly what the generated workflow writes: no clientId, no user token.
    await writeFile(join(gh.config, 'app.json'), JSON.stringify({ v: 1, appId: '4242', keyFile: 'app-key.pem' }) + '\n', { mode: 0o600 });
  });
  afterAll(async () => {
    await gh.stop();
    await cleanupTemp();
  });

  it('reserves through the channel with an installation token for this repository only', async () => {
    const { stub, owner, repo, remote, server } = gh;
    const s = await gh.session('ci');
    stub.on({ method: 'GET', path: `/repos/${owner}/${repo}/installation`, reply: { body: { id: 42, app_slug: 'abcd-lanes' } } });
    stub.on({
      method: 'POST',
      path: '/app/installations/42/access_tokens',
      // Limited to the one repository and what a lane needs.
      assert: (r) =>
        expect(r.body).toEqual({ repositories: [repo], permissions: { contents: 'write', pull_requests: 'write', metadata: 'read' } }),
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
