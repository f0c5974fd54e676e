// GitHub as a forge provider: a remote on github.com, *.ghe.com or a listed Enterprise host;
// git's network calls carry abcd's App token through the credential channel; `land` goes through
// a pull request (the merge queue where the branch has one). Its issues as items: items.ts.
import { existsSync } from 'node:fs';
import type { Deps } from '../../core/deps.js';
import type { Forge, ForgeCredentials, ForgeLanding, ForgeProvider } from '../forge.js';
import { githubLanding } from './landing.js';
import { detectGitHubRemote, type GitHubRemote } from './remote.js';

/** A remote on GitHub, with the repository it names. */
export class GitHubForge implements Forge {
  readonly landing: ForgeLanding;

  constructor(readonly remote: GitHubRemote) {
    this.landing = { through: 'pull-request', pullRequests: githubLanding(remote) };
  }

  get name(): string {
    return `${this.remote.host}/${this.remote.owner}/${this.remote.repo}`;
  }

  /**
   * With an App set up, git's network calls carry the App token through the credential channel.
   * Without one, git's own credentials apply (the person's session); lanes, which must never use
   * those, refuse before they get here.
   */
  async credentials(deps: Deps): Promise<ForgeCredentials> {
    if (!deps.self) return {};
    const { appPaths, loadAppConfig, tokenKindOf } = await import('./credentials/app-config.js');
    const paths = appPaths(deps.config.configDir);
    if (!existsSync(paths.app)) return {};
    const [{ createTokenSource }, { forgeAuth }, app] = await Promise.all([
      import('./credentials/token-source.js'),
      import('./credentials/forge-auth.js'),
      loadAppConfig(paths),
    ]);
    // A key-only App (a CI job's) mints installation tokens for this one repository.
    const kind = tokenKindOf(app);
    const { owner, repo, gitHost } = this.remote;
    const tokens = createTokenSource({ config: deps.config, clock: deps.clock, kind, repository: { owner, repo } });
    return {
      tokens,
      auth: forgeAuth({ tokens, gitHost, launcher: deps.self, baseEnv: deps.env, configDir: deps.config.configDir }),
    };
  }
}

export const githubProvider: ForgeProvider<'github'> = {
  kind: 'github',
  detect(remoteUrl, { enterpriseHosts }) {
    const remote = detectGitHubRemote(remoteUrl, enterpriseHosts);
    return remote ? new GitHubForge(remote) : undefined;
  },
};
