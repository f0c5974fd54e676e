// `abcd init`: the repository's .abcd/config.json and, on request, a CI file that runs lanes.
// All or nothing: every target is checked before the first file is written.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GENERATED_MARKER, GITHUB_WORKFLOW_PATH, renderGithubWorkflow } from './github-workflow.js';
import { GITLAB_CI_PATH, GITLAB_INCLUDE_PATH, renderGitlabCi } from './gitlab-ci.js';
import { installCommand, PACKAGE_VARIABLE, readPackageSpec } from './package-spec.js';
import { findPushWorkflows, type PushWorkflow } from './push-workflows.js';
import { lockFileRegistries } from './registries.js';
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
  /** The repository's own GitHub workflows that every record push would start. */
  pushWorkflows: PushWorkflow[];
  /** The registries the lock files name, which a check that installs must reach (land.network.allow). */
  registries: { files: string[]; allow: string[]; advice?: string };
}

interface Plan {
  path: string;
  text: string;
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
  const text = await readFile(join(root, CONFIG_PATH), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : parseRepoConfig(text, `the existing ${CONFIG_PATH}`, 'fix it, then run abcd init again');
}

export async function initRepository(input: InitInput): Promise<InitResult> {
  const top = await new Git(input.cwd, input.env).run(['rev-parse', '--show-toplevel']);
  if (top.exitCode !== 0) {
    throw new UsageError(`${input.cwd} is not inside a git repository: run abcd init in the repository's working tree`, 'clone', {
      cwd: input.cwd,
    });
  }
  const root = top.stdout.toString().trim();
  // A check reaches no host its list does not name: a new config names the registries the lock files do.
  const registries = await lockFileRegistries(root);
  const config: RepoConfig = registries.allow.length
    ? { ...DEFAULT_REPO_CONFIG, land: { ...DEFAULT_REPO_CONFIG.land, network: { allow: registries.allow } } }
    : DEFAULT_REPO_CONFIG;
  const plans: Plan[] = [{ path: CONFIG_PATH, text: renderRepoConfig(config), overwrite: false }];
  let next: string | undefined;
  if (input.ci) {
    const spec = await readPackageSpec();
    if (input.ci === 'github') {
      // The step maps the repository variable ABCD_PACKAGE into LANE_PACKAGE; an issue labelled
      // with the issue source's first ready label starts a lane.
      const readyLabel = (await existingConfig(root))?.items?.github?.labels?.[0];
      const ci = { installCommand: installCommand(spec, 'LANE_PACKAGE'), ...(readyLabel ? { readyLabel } : {}) };
      plans.push({ path: GITHUB_WORKFLOW_PATH, text: renderGithubWorkflow(ci), overwrite: input.force });
    } else {
      const target = await gitlabTarget(root);
      next = target.next;
      // A CI/CD variable of the project, read by the script itself.
      const ci = { installCommand: installCommand(spec, PACKAGE_VARIABLE) };
      plans.push({ path: target.path, text: renderGitlabCi(ci), overwrite: input.force });
    }
  }

  const kept: string[] = [];
  const todo: Plan[] = [];
  for (const p of plans) {
    if (!(await exists(join(root, p.path)))) todo.push(p);
    else if (p.path === CONFIG_PATH) {
      // The person's config is kept, but one the schema refuses would only fail later, at land.
      parseRepoConfig(await readFile(join(root, p.path), 'utf8'), `the existing ${CONFIG_PATH}`, 'fix it, then run abcd init again');
      kept.push(p.path);
    } else if (p.overwrite) todo.push(p);
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
  const pushWorkflows = await findPushWorkflows(root, input.fix === true);
  const written = [...todo.map((p) => p.path), ...pushWorkflows.filter((w) => w.state === 'fixed').map((w) => w.path)];
  const advice = await registryAdvice(root, registries, written.includes(CONFIG_PATH));
  return { root, written, kept, ...(next ? { next } : {}), pushWorkflows, registries: { ...registries, ...(advice ? { advice } : {}) } };
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
