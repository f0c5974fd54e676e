// `abcd init`: the repository's .abcd/config.json and, on request, a CI file that runs lanes.
// All or nothing: every target is checked before the first file is written.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GENERATED_MARKER, GITHUB_WORKFLOW_PATH, renderGithubWorkflow } from './github-workflow.js';
import { GITLAB_CI_PATH, GITLAB_INCLUDE_PATH, renderGitlabCi } from './gitlab-ci.js';
import { readPackage } from './package-spec.js';
import { checkAdvice, nextSteps } from './next-steps.js';
import { packRunningAbcd, vendoredPath } from './vendor.js';
import { runtimeSpec } from '../lanes/runtimes/index.js';
import type { RuntimeName } from '../lanes/runtimes/runtime.js';
import { findPushWorkflows, type PushWorkflow } from './push-workflows.js';
import { lockFileRegistries } from './registries.js';
import { unlessMissing } from '../core/best-effort.js';
import type { Env } from '../core/deps.js';
import { UsageError } from '../core/refusals.js';
import { Git } from '../git/git.js';
import { CONFIG_PATH, DEFAULT_REPO_CONFIG, parseRepoConfig, renderRepoConfig, type RepoConfig } from '../repo/config.js';

/**
 * The smallest useful repository config (src/repo/config.ts holds its one schema).
 * `land.checks` is the shell command `abcd land` runs under the load gate before it lands
 * (empty: no checks). It holds no secret: the App's key and tokens live in the person's own
 * config, outside the repository.
 */
export { CONFIG_PATH, DEFAULT_REPO_CONFIG as DEFAULT_CONFIG } from '../repo/config.js';

export type CiKind = 'github' | 'gitlab';

export interface InitInput {
  cwd: string;
  env: Env;
  ci?: CiKind;
  /** Writes lanes.runtime and the runtime's block (claude: its model key in lanes.claude.env). */
  runtime?: RuntimeName;
  /** With ci: commit the running abcd's own tarball under .abcd/vendor/ for the job to install. */
  vendor?: boolean;
  /** Overwrite an existing CI file. .abcd/config.json is never overwritten: it is the person's. */
  force: boolean;
  /** Add the abcd/ filter to the team's workflows that run on every push. */
  fix?: boolean;
}

export interface InitResult {
  root: string;
  written: string[];
  kept: string[];
  /** What the person does next, if anything (e.g. include the GitLab file). */
  next?: string;
  /** The steps after init: commit and push, the secrets and variables to add, how to start a lane, a check to set. */
  steps: string[];
  /** The repository's own GitHub workflows that every record push would start. */
  pushWorkflows: PushWorkflow[];
  /** The registries the lock files name, which a check that installs must reach (land.network.allow). */
  registries: { files: string[]; allow: string[]; advice?: string };
}

interface Plan {
  path: string;
  text: string | Buffer;
  overwrite: boolean;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Where the GitLab lanes go: .gitlab-ci.yml unless the project already has its own. */
async function gitlabTarget(root: string): Promise<{ path: string; next?: string }> {
  const main = join(root, GITLAB_CI_PATH);
  if (!(await exists(main))) return { path: GITLAB_CI_PATH };
  const text = await readFile(main, 'utf8');
  if (text.startsWith(GENERATED_MARKER)) return { path: GITLAB_CI_PATH };
  return {
    path: GITLAB_INCLUDE_PATH,
    next: `${GITLAB_CI_PATH} is your own, so the lanes went to ${GITLAB_INCLUDE_PATH}: add to ${GITLAB_CI_PATH}\n  include:\n    - local: ${GITLAB_INCLUDE_PATH}`,
  };
}

/** The person's .abcd/config.json when there is one (init keeps it; the schema checks it below). */
async function existingConfig(root: string): Promise<RepoConfig | undefined> {
  const text = await readFile(join(root, CONFIG_PATH), 'utf8').catch(unlessMissing(undefined));
  return text === undefined ? undefined : parseRepoConfig(text, `the existing ${CONFIG_PATH}`, 'fix it, then run abcd init again');
}

export async function initRepository(input: InitInput): Promise<InitResult> {
  const root = await new Git(input.cwd, input.env).clone.topLevel();
  if (root === undefined) {
    throw new UsageError(`${input.cwd} is not inside a git repository: run abcd init in the repository's working tree`, 'clone', {
      cwd: input.cwd,
    });
  }
  if (input.vendor && !input.ci) {
    throw new UsageError('--vendor commits abcd for a CI job to install: give it with --ci github or --ci gitlab.', 'argument');
  }
  // A check reaches no host its list does not name: a new config names the registries the lock files do.
  const registries = await lockFileRegistries(root);
  const existing = await existingConfig(root);
  const config = configPlan(existing, input.runtime, registries.allow);
  const plans: Plan[] = [config.plan];
  let next: string | undefined;
  let ciPath: string | undefined;
  let vendored: string | undefined;
  if (input.ci) {
    const { name, version } = await readPackage();
    vendored = input.vendor ? vendoredPath(version) : undefined;
    const abcd = { name, ...(vendored ? { vendored } : {}) };
    if (input.ci === 'github') {
      // An issue labelled with the issue source's first ready label starts a lane.
      const readyLabel = existing?.items?.github?.labels?.[0];
      ciPath = GITHUB_WORKFLOW_PATH;
      plans.push({ path: ciPath, text: renderGithubWorkflow({ abcd, ...(readyLabel ? { readyLabel } : {}) }), overwrite: input.force });
    } else {
      const target = await gitlabTarget(root);
      next = target.next;
      ciPath = target.path;
      plans.push({ path: ciPath, text: renderGitlabCi({ abcd }), overwrite: input.force });
    }
    // abcd's own artifact, not the person's: the same version's file is rewritten in place.
    if (vendored) plans.push({ path: vendored, text: await packRunningAbcd(input.env), overwrite: true });
  }

  const { kept, todo } = await writePlans(root, plans);
  const pushWorkflows = await findPushWorkflows(root, input.fix === true);
  const written = [...todo.map((p) => p.path), ...pushWorkflows.filter((w) => w.state === 'fixed').map((w) => w.path)];
  const advice = await registryAdvice(root, registries, written.includes(CONFIG_PATH));
  const steps = input.ci
    ? await nextSteps({ root, ci: input.ci, config: config.config, written, ...(vendored ? { vendored } : {}) })
    : await checkAdvice(root, config.config);
  return {
    root,
    written,
    kept,
    ...(next ? { next } : {}),
    steps,
    pushWorkflows,
    registries: { ...registries, ...(advice ? { advice } : {}) },
  };
}

/**
 * Writes every planned file that is not there yet or may be rewritten, after checking them all:
 * a file of the person's that may not be rewritten refuses the lot.
 */
async function writePlans(root: string, plans: readonly Plan[]): Promise<{ kept: string[]; todo: Plan[] }> {
  const kept: string[] = [];
  const todo: Plan[] = [];
  for (const p of plans) {
    if (!(await exists(join(root, p.path)))) todo.push(p);
    else if (p.path === CONFIG_PATH && !p.overwrite) kept.push(p.path);
    else if (p.overwrite) todo.push(p);
    else {
      throw new UsageError(`${p.path} already exists; abcd init leaves it alone. Run again with --force to rewrite it`, 'path', {
        path: p.path,
      });
    }
  }
  for (const p of todo) {
    const full = join(root, p.path);
    await mkdir(dirname(full), { recursive: true });
    // 'wx' refuses a file created since the check above rather than overwrite it.
    await writeFile(full, p.text, { flag: p.overwrite ? 'w' : 'wx' });
  }
  return { kept, todo };
}

/**
 * What init writes to .abcd/config.json: the default (its checks allowed the lock files'
 * registries) when there is none; with --runtime,
 * lanes.runtime and the runtime's block added to the person's config (a runtime it already
 * names otherwise is refused, never changed).
 */
function configPlan(
  existing: RepoConfig | undefined,
  runtime: RuntimeName | undefined,
  registries: readonly string[],
): { plan: Plan; config: RepoConfig } {
  // A new config's checks reach the registries the lock files name; a kept one is told what it lacks.
  const fresh =
    registries.length > 0
      ? { ...DEFAULT_REPO_CONFIG, land: { ...DEFAULT_REPO_CONFIG.land, network: { allow: [...registries] } } }
      : DEFAULT_REPO_CONFIG;
  const base = existing ?? fresh;
  if (!runtime) return { plan: { path: CONFIG_PATH, text: renderRepoConfig(base), overwrite: false }, config: base };
  const lanes = base.lanes ?? {};
  if (lanes.runtime && lanes.runtime !== runtime) {
    throw new UsageError(
      `${CONFIG_PATH} already sets lanes.runtime to "${lanes.runtime}"; abcd init leaves it alone. Change it there to switch to ${runtime}.`,
      'config',
      { path: CONFIG_PATH, reason: 'wrong-type', key: 'lanes.runtime' },
    );
  }
  const config: RepoConfig = { ...base, lanes: { ...lanes, runtime, ...runtimeSpec(runtime).initBlock(lanes) } };
  const changed = JSON.stringify(config) !== JSON.stringify(base);
  return { plan: { path: CONFIG_PATH, text: renderRepoConfig(config), overwrite: existing !== undefined && changed }, config };
}

/** What init says of the registries: what it wrote, or what a kept config lacks. */
async function registryAdvice(root: string, r: { files: string[]; allow: string[] }, wrote: boolean): Promise<string | undefined> {
  if (r.allow.length === 0) return undefined;
  const named = `the registries ${r.files.join(', ')} name${r.files.length === 1 ? 's' : ''}`;
  if (wrote) return `${CONFIG_PATH}: land.network.allow lists ${named} (a sandboxed check reaches no other host): ${r.allow.join(', ')}`;
  const network = (await existingConfig(root))?.land?.network;
  const listed = typeof network === 'object' ? (network.allow ?? []) : [];
  const missing = network === false ? [] : r.allow.filter((h) => !listed.includes(h));
  if (missing.length === 0) return undefined;
  return `${named[0]!.toUpperCase()}${named.slice(1)} are not in land.network.allow, so a sandboxed check cannot install from them: add ${JSON.stringify({ land: { network: { allow: [...listed, ...missing] } } })} to ${CONFIG_PATH}`;
}
