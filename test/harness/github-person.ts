// A suite that talks to the local GitHub API stub as a person signed in to abcd's App: an
// abcd config folder with the App and a user token, the stub started and stopped around the
// suite, and after each test the stub's script used up and every call made with that token.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { cleanupTemp, tempDir } from './git-env.js';
import { bearerDigest, GitHubStub } from './github-stub.js';

export interface SignedInStub {
  /** The stub (valid once the suite's beforeAll ran). */
  readonly stub: GitHubStub;
  /** The environment that points abcd at the stub and the config folder. */
  env(): Record<string, string>;
}

export function signedInGitHubStub(token: string): SignedInStub {
  let stub: GitHubStub | undefined;
  let config = '';
  beforeAll(async () => {
    stub = await GitHubStub.start();
    config = await tempDir('abcd-config');
    await mkdir(config, { recursive: true, mode: 0o700 });
    await writeFile(join(config, 'app.json'), JSON.stringify({ v: 1, appId: 1, clientId: 'Iv1.test' }), { mode: 0o600 });
    await writeFile(
      join(config, 'user-token.json'),
      JSON.stringify({ v: 1, token, expiresAt: Date.now() + 8 * 3_600_000, refreshToken: 'ghr_refresh', login: 'person' }),
      { mode: 0o600 },
    );
  });
  afterEach(() => {
    try {
      stub!.verify();
      for (const r of stub!.requests) expect(r.authorization).toBe(bearerDigest(token));
    } finally {
      stub!.reset();
    }
  });
  afterAll(async () => {
    await stub?.stop();
    await cleanupTemp();
  });
  return {
    get stub() {
      return stub!;
    },
    env: () => ({ ABCD_CONFIG_DIR: config, ABCD_GITHUB_API_URL: stub!.url, ABCD_GITHUB_GRAPHQL_URL: stub!.graphqlUrl }),
  };
}
