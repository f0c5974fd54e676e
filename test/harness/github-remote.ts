// A "GitHub" for end-to-end tests: the bare remote served over smart HTTP as <owner>/<repo>,
// accepting only `token`, a stub of the REST/GraphQL endpoints, and a private abcd config
// folder for the App's files. Sessions clone with the token, then git keeps no credential of
// its own: only abcd's credential channel can push.
import { chmod } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { tempDir } from './git-env.js';
import { GitHubStub } from './github-stub.js';
import { startHttpGitServer, type HttpGitServer } from './http-server.js';
import { makeRemote, type BareRemote } from './remote.js';
import { makeSession, type Session } from './session.js';

export interface GitHubRemote {
  remote: BareRemote;
  server: HttpGitServer;
  stub: GitHubStub;
  owner: string;
  repo: string;
  /** The App's config folder (0700): the test writes app.json and what else it needs. */
  config: string;
  /** A session on it whose git has no credential of its own. */
  session(name: string): Promise<Session>;
  stop(): Promise<void>;
}

export async function startGitHubRemote(token: string): Promise<GitHubRemote> {
  const remote = await makeRemote();
  // Served as <owner>/<repo>: the bare repo's parent folder is the owner.
  const owner = basename(dirname(remote.dir));
  const repo = basename(remote.dir).replace(/\.git$/, '');
  const server = await startHttpGitServer({ root: dirname(dirname(remote.dir)), auth: { user: 'x-access-token', password: token } });
  const stub = await GitHubStub.start();
  const config = await tempDir('abcd-config');
  await chmod(config, 0o700);
  const url = server.url(`${owner}/${basename(remote.dir)}`);
  return {
    remote,
    server,
    stub,
    owner,
    repo,
    config,
    async session(name) {
      const s = await makeSession(url.replace('http://', `http://x-access-token:${token}@`), name, {
        env: {
          ABCD_CONFIG_DIR: config,
          ABCD_GITHUB_HOSTS: '127.0.0.1',
          ABCD_GITHUB_API_URL: stub.url,
          ABCD_GITHUB_GRAPHQL_URL: stub.graphqlUrl,
        },
      });
      await s.git(['remote', 'set-url', 'origin', url]);
      return s;
    },
    async stop() {
      await stub.stop();
      await server.stop();
    },
  };
}
