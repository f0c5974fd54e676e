// What the person does after `abcd init --ci`: abcd cannot commit for them, nor add a secret
// to the forge's settings, so it names each step, from what the repository already has.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runtimeSpec } from '../lanes/runtimes/index.js';
import { DEFAULT_RUNTIME, type RepoConfig } from '../repo/config.js';
import { DEFAULT_READY_LABEL } from './github-workflow.js';
import { PACKAGE_VARIABLE } from './package-spec.js';

export interface NextStepsInput {
  root: string;
  ci: 'github' | 'gitlab';
  /** The config as init left it. */
  config: RepoConfig;
  written: readonly string[];
  vendored?: string;
}

export async function nextSteps(o: NextStepsInput): Promise<string[]> {
  const runtime = o.config.lanes?.runtime ?? DEFAULT_RUNTIME;
  const where =
    o.ci === 'github'
      ? "the repository's Settings → Secrets and variables → Actions"
      : "the project's Settings → CI/CD → Variables (masked)";
  const secret = o.ci === 'github' ? 'secret' : 'variable';
  const { install } = runtimeSpec(runtime);
  const adds = [
    ...(install ? [`${secret} ${install.keyVariable}: the ${runtime} runtime's model key (only the lane step gets it)`] : []),
    // A runtime without a CLI of its own runs the agent command.
    ...(!install && !o.config.lanes?.agent ? ['variable LANE_AGENT: the agent command each cycle runs (or set lanes.agent)'] : []),
    ...(o.vendored
      ? []
      : [
          `variable ${PACKAGE_VARIABLE}: a tarball's URL or your registry's name@version (abcd is not on the npm registry yet; or run init again with --vendor)`,
        ]),
    `variable LANE_APP_ID and ${secret} LANE_APP_PRIVATE_KEY: the GitHub App lanes push with (abcd setup-app walks through it)${o.ci === 'gitlab' ? ', for a GitHub remote' : ''}`,
  ];
  const files = o.written.length ? o.written.join(' ') : '.abcd';
  const start =
    o.ci === 'github'
      ? o.config.items?.github
        ? `label an issue "${o.config.items.github.labels?.[0] ?? DEFAULT_READY_LABEL}" to build it, or run the "abcd lanes" workflow (an item, or none to drain)`
        : 'run the "abcd lanes" workflow from the Actions tab (an item such as fix-login, or none to drain every ready item); to build labelled issues, set items.github in .abcd/config.json'
      : 'run a pipeline (Build → Pipelines → Run pipeline, LANE_ITEM an item or empty to drain), or add a schedule';
  return [
    `commit and push: git add ${files} && git commit -m "abcd: lanes in CI" && git push`,
    `add in ${where}:\n${adds.map((a) => `     - ${a}`).join('\n')}`,
    start,
    ...(await checkAdvice(o.root, o.config)),
  ];
}

/** A land check to set when there is none and the project has a real one (its package.json test script). */
export async function checkAdvice(root: string, config: RepoConfig): Promise<string[]> {
  const checks = config.land?.checks;
  if (checks && (typeof checks === 'string' ? checks.trim() : checks.length)) return [];
  const pkg = await readFile(join(root, 'package.json'), 'utf8').then(
    (t) => JSON.parse(t) as { scripts?: Record<string, unknown> },
    () => undefined,
  );
  const test = pkg?.scripts?.test;
  if (typeof test !== 'string' || /no test specified/.test(test)) return [];
  const locked = await stat(join(root, 'package-lock.json')).then(
    () => true,
    () => false,
  );
  const check = locked ? 'npm ci && npm test' : 'npm install && npm test';
  return [
    `lanes land unchecked: land.checks is empty. package.json has a test script, so set "land": {"checks": "${check}"} in .abcd/config.json`,
  ];
}
