// GitHub issues as items (`items.github` on main): the source opens with the API client for the
// remote's host, the issues' repository (items.github.repo, else the remote's own), and abcd's
// App token for that repository, found on the first call.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { UnsafeEnvironment, UsageError } from '../../core/refusals.js';
import type { ForgeItems, ForgeItemsInput, ForgeTokens } from '../forge.js';
import { GITHUB_HOST } from '../forge-host.js';
import type { GitHubItemsConfig } from './items-config.js';
import { DEFAULT_READY_LABELS, GitHubIssueSource } from './issue-source.js';
import { KeptAnswers } from './kept-answers.js';
import { githubClient } from './api-client.js';
import { GitHubForge } from './provider.js';
import type { RepoName } from './pull-requests.js';
import type { GitHubRemote } from './remote.js';

export const githubItems: ForgeItems<GitHubItemsConfig> = {
  source: 'github',
  // The remote's repository, when the remote is on GitHub: its issues are the default, and its App token serves them.
  open: (input) => openIssueSource(input, input.forge instanceof GitHubForge ? input.forge.remote : undefined),
  notConfigured: (item) =>
    new UsageError(
      `${item} names a GitHub issue, but .abcd/config.json on main has no items.github: add {"items": {"github": {}}} ` +
        '(labels default to ["abcd:ready"]; repo to the remote\'s, or name one as "owner/name") and land it.',
      'item-source',
      { item, source: 'github', reason: 'not-configured' },
    ),
};

function openIssueSource(input: ForgeItemsInput<GitHubItemsConfig>, remote: GitHubRemote | undefined): GitHubIssueSource {
  const gh = input.config;
  const target = issueRepository(remote, gh);
  const { clock, config: env } = input.deps;
  const tokens = tokensFor(input, remote, target);
  const client = githubClient({
    host: remote ? remote.host : GITHUB_HOST,
    env,
    token: async () => (await tokens()).get().then((t) => t.token),
    clock,
    ...(input.deadlineAt !== undefined ? { deadlineAt: input.deadlineAt } : {}),
  });
  return new GitHubIssueSource({
    api: { client, kept: new KeptAnswers(join(input.commonDir, 'abcd', 'github')), ...target },
    labels: gh.labels ?? DEFAULT_READY_LABELS,
    exclude: gh.exclude ?? [],
    priority: gh.priority ?? [],
    ...(remote ? { landsIn: { owner: remote.owner, repo: remote.repo } } : {}),
  });
}

/** items.github.repo, else the remote's repository when the remote is on GitHub. */
function issueRepository(remote: GitHubRemote | undefined, gh: GitHubItemsConfig): RepoName {
  if (gh.repo) {
    const [owner = '', name = ''] = gh.repo.split('/');
    return { owner, repo: name };
  }
  if (remote) return { owner: remote.owner, repo: remote.repo };
  throw new UsageError(
    '.abcd/config.json on main sets items.github without a repo, and the remote is no GitHub remote: name the repository whose issues are items ("repo": "owner/name").',
    'item-source',
    { item: 'github', source: 'github', reason: 'not-configured' },
  );
}

/**
 * The App token for the issues' repository, found on the first call: the remote's own when the
 * issues live there, else one minted for that repository. Never the person's login (a lane reads
 * and closes issues as abcd, as it pushes).
 */
function tokensFor(
  input: ForgeItemsInput<GitHubItemsConfig>,
  remote: GitHubRemote | undefined,
  target: RepoName,
): () => Promise<ForgeTokens> {
  let found: Promise<ForgeTokens> | undefined;
  return () => (found ??= findTokens(input, remote, target));
}

async function findTokens(
  input: ForgeItemsInput<GitHubItemsConfig>,
  remote: GitHubRemote | undefined,
  target: RepoName,
): Promise<ForgeTokens> {
  const { ISSUE_PERMISSIONS, LANE_PERMISSIONS } = await import('./credentials/token-installation.js');
  if (
    input.tokens &&
    remote &&
    remote.owner.toLowerCase() === target.owner.toLowerCase() &&
    remote.repo.toLowerCase() === target.repo.toLowerCase()
  ) {
    input.tokens.need(ISSUE_PERMISSIONS);
    return input.tokens;
  }
  const { appPaths, loadAppConfig, tokenKindOf } = await import('./credentials/app-config.js');
  const paths = appPaths(input.deps.config.configDir);
  if (!existsSync(paths.app)) {
    throw new UnsafeEnvironment(
      `the GitHub issues of ${target.owner}/${target.repo} are read and closed with abcd's App token, and none is set up: run abcd setup-app (a step only you can take).`,
      { reason: 'no-app', fix: 'abcd setup-app' },
    );
  }
  const [{ createTokenSource }, app] = await Promise.all([import('./credentials/token-source.js'), loadAppConfig(paths)]);
  const { config, clock } = input.deps;
  return createTokenSource({
    config,
    clock,
    kind: tokenKindOf(app),
    repository: target,
    permissions: { ...LANE_PERMISSIONS, ...ISSUE_PERMISSIONS },
  });
}
