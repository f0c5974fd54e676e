// The item sources of a repository, chosen by a key's source part: `local` (files on main)
// always, `github` (issues) when `.abcd/config.json` on main sets `items.github`. Lanes and
// `abcd items` hold one ItemSources and never ask which kind an item is.
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { formatItem, type ItemKey } from '../records/item.js';
import { UnsafeEnvironment, UsageError, type Refusal } from '../core/refusals.js';
import { GITHUB_HOST } from '../forges/forge-host.js';
import { GitHubClient } from '../forges/github/client.js';
import { KeptAnswers } from '../forges/github/kept-answers.js';
import type { RepoName } from '../forges/github/pull-requests.js';
import type { TokenSource } from '../forges/github/credentials/token-source.js';
import type { RepoConfig } from '../repo/config.js';
import type { GitHubItemsConfig } from '../forges/github/items-config.js';
import type { Repo } from '../repo/repo.js';
import { DEFAULT_READY_LABELS, GitHubIssueSource } from '../forges/github/issue-source.js';
import { LocalItemSource } from './local-source.js';
import type { ItemComment, ItemDoc, ItemLanded, ItemListing, ItemOutcome, ItemSource } from './source.js';

export const KNOWN_SOURCES = ['local', 'github'] as const;

export class ItemSources implements ItemSource {
  readonly source = 'any';

  constructor(private readonly sources: ReadonlyMap<string, ItemSource>) {}

  /** The source that owns `key`; a source abcd does not know, or this repository did not set up, is refused. */
  of(key: ItemKey): ItemSource {
    const s = this.sources.get(key.source);
    if (s) return s;
    const item = formatItem(key);
    if (key.source === 'github') {
      throw new UsageError(
        `${item} names a GitHub issue, but .abcd/config.json on main has no items.github: add {"items": {"github": {}}} ` +
          '(labels default to ["abcd:ready"]; repo to the remote\'s, or name one as "owner/name") and land it.',
        'item-source',
        { item, source: key.source, reason: 'not-configured' },
      );
    }
    throw new UsageError(
      `${item} names the item source "${key.source}", which abcd does not know: the sources are ${KNOWN_SOURCES.join(', ')}.`,
      'item-source',
      {
        item,
        source: key.source,
        reason: 'unknown',
      },
    );
  }

  /** The GitHub issue source, for what only it can do (open an issue); refused as `of` refuses when not set up. */
  github(): GitHubIssueSource {
    return this.of({ source: 'github', kind: 'issue', id: '1' }) as GitHubIssueSource;
  }

  /** Every source's items side by side; a source that cannot be read fails the listing (never "no work"). */
  async list(mainTip: string): Promise<ItemListing> {
    const all = await Promise.all([...this.sources.values()].map((s) => s.list(mainTip)));
    return { mainTip, items: all.flatMap((l) => l.items), refused: all.flatMap((l) => l.refused) };
  }

  read(key: ItemKey, mainTip: string, listed?: ItemDoc): Promise<ItemDoc | undefined> {
    return this.of(key).read(key, mainTip, listed);
  }

  whyNotListed(key: ItemKey, mainTip: string): Promise<Refusal> {
    return this.of(key).whyNotListed(key, mainTip);
  }

  commentsSince(key: ItemKey, sinceMs: number): Promise<ItemComment[]> {
    return this.of(key).commentsSince(key, sinceMs);
  }

  landingNote(key: ItemKey): string | undefined {
    return this.of(key).landingNote(key);
  }

  markDone(key: ItemKey, landed: ItemLanded): Promise<{ warning?: string }> {
    return this.of(key).markDone(key, landed);
  }

  reportOutcome(key: ItemKey, outcome: ItemOutcome): Promise<{ warning?: string }> {
    return this.of(key).reportOutcome(key, outcome);
  }
}

/** The sources `config` (main's `.abcd/config.json`) sets up; GitHub calls end by `deadlineAt` when given. */
export function openItemSources(repo: Repo, config: RepoConfig, o: { deadlineAt?: number } = {}): ItemSources {
  const map = new Map<string, ItemSource>([['local', new LocalItemSource(repo.git)]]);
  const gh = config.items?.github;
  if (gh) map.set('github', githubSource(repo, gh, o.deadlineAt));
  return new ItemSources(map);
}

function githubSource(repo: Repo, gh: GitHubItemsConfig, deadlineAt: number | undefined): GitHubIssueSource {
  const forge = repo.forge;
  const target = issueRepository(repo, gh);
  const { clock, config: env } = repo.deps;
  const api = env.github.apiUrl;
  const tokens = tokensFor(repo, target);
  const client = new GitHubClient({
    host: forge.kind === 'github' ? forge.host : GITHUB_HOST,
    ...(api ? { restUrl: api, graphqlUrl: env.github.graphqlUrl || `${api}/graphql` } : {}),
    token: async () => (await tokens()).get().then((t) => t.token),
    clock,
    ...(deadlineAt !== undefined ? { deadlineAt } : {}),
  });
  return new GitHubIssueSource({
    api: { client, kept: new KeptAnswers(join(repo.commonDir, 'abcd', 'github')), ...target },
    labels: gh.labels ?? DEFAULT_READY_LABELS,
    exclude: gh.exclude ?? [],
    priority: gh.priority ?? [],
    ...(forge.kind === 'github' ? { landsIn: { owner: forge.owner, repo: forge.repo } } : {}),
  });
}

/** items.github.repo, else the remote's repository when the remote is on GitHub. */
function issueRepository(repo: Repo, gh: GitHubItemsConfig): RepoName {
  if (gh.repo) {
    const [owner = '', name = ''] = gh.repo.split('/');
    return { owner, repo: name };
  }
  if (repo.forge.kind === 'github') return { owner: repo.forge.owner, repo: repo.forge.repo };
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
function tokensFor(repo: Repo, target: RepoName): () => Promise<TokenSource> {
  let found: Promise<TokenSource> | undefined;
  return () => (found ??= findTokens(repo, target));
}

async function findTokens(repo: Repo, target: RepoName): Promise<TokenSource> {
  const f = repo.forge;
  const { ISSUE_PERMISSIONS, LANE_PERMISSIONS } = await import('../forges/github/credentials/token-installation.js');
  if (
    repo.tokens &&
    f.kind === 'github' &&
    f.owner.toLowerCase() === target.owner.toLowerCase() &&
    f.repo.toLowerCase() === target.repo.toLowerCase()
  ) {
    repo.tokens.need(ISSUE_PERMISSIONS);
    return repo.tokens;
  }
  const { appPaths, loadAppConfig, tokenKindOf } = await import('../forges/github/credentials/app-config.js');
  const paths = appPaths(repo.deps.config.configDir);
  if (!existsSync(paths.app)) {
    throw new UnsafeEnvironment(
      `the GitHub issues of ${target.owner}/${target.repo} are read and closed with abcd's App token, and none is set up: run abcd setup-app (a step only you can take).`,
      { reason: 'no-app', fix: 'abcd setup-app' },
    );
  }
  const [{ createTokenSource }, app] = await Promise.all([import('../forges/github/credentials/token-source.js'), loadAppConfig(paths)]);
  const { config, clock } = repo.deps;
  return createTokenSource({
    config,
    clock,
    kind: tokenKindOf(app),
    repository: target,
    permissions: { ...LANE_PERMISSIONS, ...ISSUE_PERMISSIONS },
  });
}
