// GitHub's part of landing through a pull request: an App token must be set up, a push that
// changes .github/workflows needs the App's workflows permission, and the merge itself (open or
// update the pull request, re-read the claim, merge or enqueue, wait) goes through the API. The
// API's modules load only when a land gets that far: every verb opens a repository, few land.
import { UnsafeEnvironment } from '../../core/refusals.js';
import type { ForgeTokens, PullRequestLanding, PullRequestMerge, PullRequestMerged } from '../forge.js';
import type { GitHubRemote } from './remote.js';

export function githubLanding(remote: GitHubRemote): PullRequestLanding {
  return {
    precheck({ tokens }) {
      if (!tokens) {
        throw new UnsafeEnvironment(
          `landing on ${remote.host} needs abcd's App token and none is set up: run abcd setup-app (a step only you can take).`,
          { host: remote.host },
        );
      }
    },
    /** GitHub refuses an App's push that touches .github/workflows without that permission: say so first. */
    async beforePush({ changedPaths, configDir }) {
      const [{ appPaths, loadAppConfig }, { assertWorkflowPermission }] = await Promise.all([
        import('./credentials/app-config.js'),
        import('./workflow-permission.js'),
      ]);
      const config = await loadAppConfig(appPaths(configDir));
      assertWorkflowPermission({ changedPaths: [...changedPaths], permissions: config.permissions ?? {} });
    },
    merge: (o) => mergeThroughGithub(remote, o),
  };
}

/** Opens or updates the pull request, merges or enqueues it through the API, and says what landed. */
async function mergeThroughGithub(remote: GitHubRemote, o: PullRequestMerge): Promise<PullRequestMerged> {
  const tokens = presentTokens(o.tokens);
  const { clock, config: env } = o.deps;
  const [{ githubClient }, { mergeOnGithub }] = await Promise.all([import('./api-client.js'), import('./merge-pull-request.js')]);
  const client = githubClient({
    host: remote.host,
    env,
    token: async () => (await tokens.get()).token,
    clock,
    deadlineAt: o.deadlineMs,
  });
  const landed = await mergeOnGithub({
    client,
    owner: remote.owner,
    repo: remote.repo,
    branch: o.branch,
    base: o.base,
    title: o.title,
    body: o.body,
    expectedHead: o.expectedHead,
    claimTip: o.claimTip,
    readClaimTip: o.readClaimTip,
    fenced: o.fenced,
    clock,
    deadlineMs: o.deadlineMs,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.mergeMethod ? { mergeMethod: o.mergeMethod } : {}),
  });
  return {
    mergeCommit: landed.mergeCommit,
    said: `pull request #${landed.number}`,
    landed: {
      github: {
        number: landed.number,
        ...(landed.url ? { url: landed.url } : {}),
        via: landed.via,
        fenceWindowMs: landed.fenceWindowMs,
      },
    },
  };
}

// The precheck refused a land without tokens before anything ran: none here is abcd's bug.
function presentTokens(tokens: ForgeTokens | undefined): ForgeTokens {
  if (!tokens) throw new Error('a GitHub merge without the App token the precheck requires');
  return tokens;
}
