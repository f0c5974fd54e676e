import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import yargs from 'yargs';
import type { Command } from '../../src/cli/command.js';
import { commands } from '../../src/cli/commands.js';
import { init } from '../../src/cli/commands/init.js';
import { appPaths, loadAppConfig, loadPrivateKey } from '../../src/forges/github/credentials/app-config.js';
import { signAppJwt } from '../../src/forges/github/credentials/app-jwt.js';
import type { Deps } from '../../src/core/deps.js';
import { initRepository } from '../../src/setup/init.js';
import { UsageError } from '../../src/core/refusals.js';
import { envConfig } from '../../src/cli/env-config.js';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { exportedEnv, exportVariable, runGithubJob, STUBBED_COMMANDS, type JobStep } from '../harness/github-job.js';
import { evaluateText, type Context } from '../harness/actions-expr.js';
import { MODEL_KEY_SECRETS } from '../../src/setup/ci-lane-lines.js';

afterAll(cleanupTemp);

async function repo(): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await tempDir('init');
  const env = isolatedEnv(dir);
  await git(dir, ['init', '-q'], env);
  return { dir, env };
}

type Step = { name?: string; uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string> };

/** Runs a generated shell snippet with the given environment, as the CI runner would. */
async function sh(script: string, env: Record<string, string>): Promise<string> {
  const r = await execa('bash', ['-eo', 'pipefail', '-c', script], { env: { PATH: process.env.PATH!, ...env }, extendEnv: false });
  return r.stdout;
}

describe('abcd init --ci github', () => {
  it('writes the config and a workflow that serializes lanes per item without cancelling', async () => {
    const { dir, env } = await repo();
    const r = await initRepository({ cwd: dir, env, ci: 'github', force: false });
    expect(r.written).toEqual(['.abcd/config.json', '.github/workflows/abcd-lanes.yml']);
    expect(JSON.parse(await readFile(join(dir, '.abcd/config.json'), 'utf8'))).toEqual({ land: { checks: '' } });

    const wf = parse(await readFile(join(dir, '.github/workflows/abcd-lanes.yml'), 'utf8'));
    expect(wf.on.workflow_dispatch.inputs.item.type).toBe('string');
    expect(wf.on.schedule).toHaveLength(1);
    expect(wf.on.issues).toEqual({ types: ['labeled'] });
    expect(wf.on.issue_comment).toEqual({ types: ['created'] });
    // No drain on every push to main, and so nothing a record push under abcd/ could start.
    expect(Object.keys(wf.on).sort()).toEqual(['issue_comment', 'issues', 'schedule', 'workflow_dispatch']);
    // The App writes comments and pushes; the job's own token only reads.
    expect(wf.permissions).toEqual({ contents: 'read' });
    expect(wf.jobs.gate.permissions).toEqual({});
    expect(await readFile(join(dir, '.github/workflows/abcd-lanes.yml'), 'utf8')).toMatch(/^# merge_group /m);
    const job = wf.jobs.lane;
    // Nothing of the lane runs before the gate said who asked and what to build.
    expect(job.needs).toBe('gate');
    expect(job.if).toBe("${{ needs.gate.outputs.go == 'true' }}");
    expect(job.concurrency).toEqual({ group: '${{ needs.gate.outputs.group }}', 'cancel-in-progress': false });
    expect(job['timeout-minutes']).toBe(60);
    const steps: Step[] = job.steps;
    const checkout = steps.find((s) => s.uses?.startsWith('actions/checkout@'));
    expect(checkout?.with?.['persist-credentials']).toBe(false);
    const lane = steps.find((s) => s.run?.includes('abcd drain'));
    const key = steps.find((s) => s.run?.includes('ABCD_CONFIG_DIR'));
    expect(key?.env?.LANE_APP_PRIVATE_KEY).toBe('${{ secrets.LANE_APP_PRIVATE_KEY }}');
    // The key reaches only the step that writes it to a private file, never abcd's environment.
    expect(lane?.env?.LANE_APP_PRIVATE_KEY).toBeUndefined();
    expect(lane?.env?.LANE_ITEM).toBe('${{ needs.gate.outputs.item }}');
    expect(lane?.run).toContain('abcd build "$LANE_ITEM"');
    expect(lane?.run).toContain('--lifecycle timed');
    // The job's own token never reaches the lane: the login check would refuse it.
    expect(JSON.stringify(wf)).not.toMatch(/GITHUB_TOKEN|GH_TOKEN/);
  });

  it('exports ABCD_JOB_DEADLINE as RFC 3339: this step plus timeout-minutes, less a setup margin', async () => {
    const { dir, env } = await repo();
    await initRepository({ cwd: dir, env, ci: 'github', force: false });
    const wf = parse(await readFile(join(dir, '.github/workflows/abcd-lanes.yml'), 'utf8'));
    const steps: Step[] = wf.jobs.lane.steps;
    const deadlineStep = steps.findIndex((s) => s.run?.includes('ABCD_JOB_DEADLINE'));
    expect(deadlineStep).toBe(0);
    const githubEnv = join(await tempDir('ghenv'), 'env');
    await writeFile(githubEnv, '');
    // Timestamps around the step (the shell's start-up is inside them, so no slack is needed
    // beyond the whole second the step rounds down to).
    const before = Date.now();
    await sh(steps[0]!.run!, { GITHUB_ENV: githubEnv });
    const after = Date.now();
    const m = /^ABCD_JOB_DEADLINE=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\n$/.exec(await readFile(githubEnv, 'utf8'));
    expect(m).not.toBeNull();
    const deadline = Date.parse(m![1]!);
    expect(deadline - before).toBeGreaterThan(58 * 60_000 - 1000);
    expect(deadline - after).toBeLessThanOrEqual(58 * 60_000);
  });

  it('refuses to overwrite an existing workflow without --force, and writes nothing', async () => {
    const { dir, env } = await repo();
    await initRepository({ cwd: dir, env, ci: 'github', force: false });
    const path = join(dir, '.github/workflows/abcd-lanes.yml');
    await writeFile(path, 'mine\n');
    await writeFile(join(dir, '.abcd/config.json'), '{"land":{"checks":"npm test"}}\n');
    const e = await initRepository({ cwd: dir, env, ci: 'github', force: false }).catch((x) => x);
    expect(e).toBeInstanceOf(UsageError);
    expect(e.exit).toBe(2);
    expect(e.data).toEqual({ path: '.github/workflows/abcd-lanes.yml' });
    expect(await readFile(path, 'utf8')).toBe('mine\n');

    const forced = await initRepository({ cwd: dir, env, ci: 'github', force: true });
    expect(forced).toMatchObject({ written: ['.github/workflows/abcd-lanes.yml'], kept: ['.abcd/config.json'] });
    expect(await readFile(path, 'utf8')).toContain('persist-credentials: false');
    // The config is the person's: --force never rewrites it.
    expect(await readFile(join(dir, '.abcd/config.json'), 'utf8')).toContain('npm test');
  });

  it('refuses outside a git repository', async () => {
    const dir = await tempDir('init-nogit');
    const e = await initRepository({ cwd: dir, env: isolatedEnv(dir), force: false }).catch((x) => x);
    expect(e).toBeInstanceOf(UsageError);
  });
});

describe('abcd init --ci gitlab', () => {
  it('writes .gitlab-ci.yml with a resource group per item, the deadline and no abcd/ branches', async () => {
    const { dir, env } = await repo();
    const r = await initRepository({ cwd: dir, env, ci: 'gitlab', force: false });
    expect(r.written).toEqual(['.abcd/config.json', '.gitlab-ci.yml']);
    const ci = parse(await readFile(join(dir, '.gitlab-ci.yml'), 'utf8'));
    const job = ci['abcd-lane'];
    expect(job.resource_group).toBe('abcd-lane-$LANE_ITEM');
    expect(ci.variables.LANE_ITEM.value).toBe('');
    // Only a pipeline someone asked for runs a lane (test/init-gitlab-rules.test.ts evaluates the rules).
    expect(job.rules.at(-1)).toEqual({ when: 'never' });
    // The deadline lines, run as the runner would with its predefined variables.
    const deadlineLines = (job.script as string[]).filter((l) => l.startsWith('started=') || l.startsWith('export ABCD_JOB_DEADLINE='));
    expect(deadlineLines).toHaveLength(2);
    const out = await sh(`${deadlineLines.join('\n')}\necho "$ABCD_JOB_DEADLINE"`, {
      CI_JOB_STARTED_AT: '2026-10-23T09:00:00Z',
      CI_JOB_TIMEOUT: '3600',
    });
    expect(out.trim()).toBe('2026-10-23T10:00:00Z');
  });

  it("leaves the project's own .gitlab-ci.yml alone and says where the lanes went", async () => {
    const { dir, env } = await repo();
    await writeFile(join(dir, '.gitlab-ci.yml'), 'test:\n  script: [make]\n');
    let stdout = '';
    const out = { stdout: (t: string) => void (stdout += t), stderr: () => {}, isTTY: false };
    const deps = { cwd: dir, env, config: envConfig(env), out, remote: 'origin' } as unknown as Deps;
    const r = await init.run({ json: true, debug: false, remote: 'origin', ci: 'gitlab', force: false }, deps, { commands: [] });
    expect(r.json.written).toEqual(['.abcd/config.json', '.abcd/ci/gitlab-lanes.yml']);
    expect(r.text).toContain('include:\n    - local: .abcd/ci/gitlab-lanes.yml');
    expect(await readFile(join(dir, '.gitlab-ci.yml'), 'utf8')).toBe('test:\n  script: [make]\n');
    expect(parse(await readFile(join(dir, '.abcd/ci/gitlab-lanes.yml'), 'utf8'))['abcd-lane'].resource_group).toBe('abcd-lane-$LANE_ITEM');
    expect((await stat(join(dir, '.abcd/config.json'))).isFile()).toBe(true);
  });
});

// ---- what the generated files call and set is what abcd has and reads ---------------------

const GLOBAL_OPTIONS = ['json', 'debug', 'remote', 'help'];

function verbName(c: Command): string {
  const first = Array.isArray(c.command) ? c.command[0] : c.command;
  return String(first).split(' ')[0]!;
}

/** The options each registered verb accepts, from its own builder. */
function registeredVerbs(): Map<string, Set<string>> {
  const verbs = new Map<string, Set<string>>();
  for (const c of commands) {
    // getOptions is yargs' own (the options a builder declared), missing from its published types.
    const built = c.builder(yargs([])) as unknown as { getOptions(): { key: Record<string, unknown> } };
    const o = built.getOptions();
    verbs.set(verbName(c), new Set([...Object.keys(o.key), ...GLOBAL_OPTIONS]));
  }
  return verbs;
}

/** Every `abcd <verb> --flag ...` a shell script runs (one per line, as the templates write them). */
function abcdCalls(script: string): Array<{ verb: string; flags: string[]; line: string }> {
  return script
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^abcd\s+[a-z]/.test(l))
    .map((line) => ({
      line,
      verb: line.split(/\s+/)[1]!,
      flags: [...line.matchAll(/(?:^|\s)--([a-z][a-z-]*)/g)].map((m) => m[1]!),
    }));
}

/** Every ABCD_* name abcd's own code reads from the environment (src/, the CI templates aside). */
async function variablesAbcdReads(): Promise<Set<string>> {
  const names = new Set<string>();
  const root = join(import.meta.dirname, '../../src');
  for (const f of await readdir(root, { recursive: true })) {
    if (!f.endsWith('.ts') || f.startsWith('ci/')) continue;
    const text = await readFile(join(root, f), 'utf8');
    for (const m of text.matchAll(/env(?:\.|\[\s*['"])(ABCD_[A-Z0-9_]+)|_ENV\s*=\s*'(ABCD_[A-Z0-9_]+)'/g)) names.add((m[1] ?? m[2])!);
  }
  return names;
}

/** One job's `run:` steps, each with the expressions its env maps. */
function jobSteps(wf: { jobs: Record<string, { steps: Step[] }> }, job: string): JobStep[] {
  return wf.jobs[job]!.steps.filter((s) => s.run).map((s) => ({ name: s.name ?? '', env: s.env ?? {}, run: s.run! }));
}

/** A generated CI file as shell steps: each with the variables it sets and its script. */
async function generatedSteps(kind: 'github' | 'gitlab'): Promise<JobStep[]> {
  const { dir, env } = await repo();
  await initRepository({ cwd: dir, env, ci: kind, force: false });
  if (kind === 'github') {
    const wf = parse(await readFile(join(dir, '.github/workflows/abcd-lanes.yml'), 'utf8'));
    return [...jobSteps(wf, 'gate'), ...jobSteps(wf, 'lane')];
  }
  const ci = parse(await readFile(join(dir, '.gitlab-ci.yml'), 'utf8'));
  const vars = Object.fromEntries(Object.entries(ci.variables as Record<string, { value: string }>).map(([k, v]) => [k, v.value]));
  return [{ name: 'script', env: vars, run: (ci['abcd-lane'].script as string[]).join('\n') }];
}

/** The lines that install abcd: GitHub's "Install abcd" step, or GitLab's script entry that does. */
function installScript(kind: 'github' | 'gitlab', steps: JobStep[]): string {
  if (kind === 'github') return steps.find((s) => s.name === 'Install abcd')!.run;
  const lines = steps[0]!.run.split('\n');
  const from = lines.findIndex((l) => l.startsWith('if [ -z "$ABCD_PACKAGE" ]') || l.startsWith('npm install --global --offline'));
  const to = lines.findIndex((l, i) => i > from && l === 'abcd --version');
  return lines.slice(from, to + 1).join('\n');
}

/** The Node major the generated lane job runs on: setup-node's version, or the job's image. */
async function installedNodeMajor(kind: 'github' | 'gitlab'): Promise<number> {
  const { dir, env } = await repo();
  await initRepository({ cwd: dir, env, ci: kind, force: false });
  if (kind === 'github') {
    const wf = parse(await readFile(join(dir, '.github/workflows/abcd-lanes.yml'), 'utf8'));
    const setup = (wf.jobs.lane.steps as Step[]).find((s) => s.uses?.startsWith('actions/setup-node@'));
    return Number(setup?.with?.['node-version']);
  }
  const ci = parse(await readFile(join(dir, '.gitlab-ci.yml'), 'utf8'));
  return Number(/^node:(\d+)/.exec(String(ci['abcd-lane'].image))?.[1]);
}

describe('generated CI files call only what abcd has', () => {
  for (const kind of ['github', 'gitlab'] as const) {
    it(`${kind}: every abcd verb and flag is registered in the command table`, async () => {
      const verbs = registeredVerbs();
      const calls = (await generatedSteps(kind)).flatMap((s) => abcdCalls(s.run));
      expect(calls.map((c) => c.verb).sort()).toEqual(['build', 'drain']);
      for (const c of calls) {
        expect(verbs.has(c.verb), `${c.line}: no verb ${c.verb}`).toBe(true);
        for (const f of c.flags) expect(verbs.get(c.verb)!.has(f), `${c.line}: ${c.verb} has no --${f}`).toBe(true);
      }
      // The lane job runs timed against the job's own deadline; --agent only for the command runtime, through "$@".
      for (const c of calls) expect(c.flags).toEqual(expect.arrayContaining(['lifecycle', 'deadline']));
      for (const c of calls) expect(c.flags).not.toContain('agent');
    });

    it(`${kind}: every ABCD_ variable it sets is one abcd reads; every other one its own step uses`, async () => {
      const reads = await variablesAbcdReads();
      expect(reads).toContain('ABCD_CONFIG_DIR');
      const steps = await generatedSteps(kind);
      const all = steps.map((s) => s.run).join('\n');
      for (const step of steps) {
        for (const name of Object.keys(step.env)) {
          if (name.startsWith('ABCD_')) expect(reads, `${name} is set but abcd never reads it`).toContain(name);
          // A model key is for the agent, which gets it through its runtime's env list (lanes.claude.env).
          else if (MODEL_KEY_SECRETS.includes(name)) expect(step.name).toBe('Run the lane');
          else expect(all, `${name} is set but nothing uses it`).toMatch(new RegExp(`\\$\\{?${name}\\b|process\\.env\\.${name}\\b`));
        }
        // Exported for later steps (GITHUB_ENV) or the rest of the script.
        for (const m of step.run.matchAll(/(?:^|\s)(?:export\s+|echo\s+")(ABCD_[A-Z0-9_]+)=/gm)) {
          expect(reads, `${m[1]} is exported but abcd never reads it`).toContain(m[1]);
        }
      }
      expect(all).not.toMatch(/ABCD_APP_ID|ABCD_APP_PRIVATE_KEY/);
    });

    it(`${kind}: gets bubblewrap and socat before the lane, which runs with the default --sandbox auto`, async () => {
      const all = (await generatedSteps(kind)).map((s) => s.run).join('\n');
      expect(all).toMatch(/(^\s*|&& )(sudo )?apt-get install -y -q bubblewrap socat$/m);
      expect(all.indexOf('install -y -q bubblewrap')).toBeLessThan(all.indexOf('abcd drain'));
      // GitHub's Ubuntu 24.04 runners refuse unprivileged user namespaces until this is lifted.
      if (kind === 'github') expect(all).toMatch(/^\s*sudo sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0$/m);
      for (const c of abcdCalls(all)) expect(c.flags, c.line).not.toContain('sandbox');
    });

    it(`${kind}: installs a Node line that package.json's engines allow`, async () => {
      const pkg = JSON.parse(await readFile(join(import.meta.dirname, '../../package.json'), 'utf8'));
      const lowest = Number(/^>=(\d+)$/.exec(pkg.engines.node)?.[1]);
      expect(lowest).toBeGreaterThanOrEqual(22);
      expect(await installedNodeMajor(kind)).toBeGreaterThanOrEqual(lowest);
    });

    it(`${kind}: without --vendor installs what ABCD_PACKAGE names, and says how to set it when it is unset`, async () => {
      const pkg = JSON.parse(await readFile(join(import.meta.dirname, '../../package.json'), 'utf8'));
      const steps = await generatedSteps(kind);
      const all = steps.map((s) => s.run).join('\n');
      expect(all).not.toMatch(/npm install --global abcd\b(?!@)/);
      expect(pkg.name).not.toBe('abcd');
      // The install lines run with a stand-in npm that says what it was asked to install.
      const install = installScript(kind, steps);
      const bin = await tempDir('fake-npm');
      await writeFile(join(bin, 'npm'), '#!/bin/sh\nprintf "%s|" "$@"\n', { mode: 0o755 });
      await writeFile(join(bin, 'abcd'), '#!/bin/sh\necho "abcd 0.0.0"\n', { mode: 0o755 });
      const env = { PATH: `${bin}:${process.env.PATH}` };
      // GitHub maps the repository variable into the step's env; GitLab's CI/CD variable is the name itself.
      const variable = kind === 'github' ? 'LANE_PACKAGE' : 'ABCD_PACKAGE';
      if (kind === 'github')
        expect(steps.find((s) => s.name === 'Install abcd')!.env).toEqual({ LANE_PACKAGE: '${{ vars.ABCD_PACKAGE }}' });
      expect(await sh(install, { ...env, [variable]: '/tmp/my abcd.tgz' })).toBe(
        'install|--global|--no-audit|--no-fund|/tmp/my abcd.tgz|abcd 0.0.0',
      );
      const unset = await execa('bash', ['-eo', 'pipefail', '-c', install], { env, extendEnv: false, reject: false });
      expect(unset.exitCode).toBe(1);
      expect(unset.stderr).toContain(`${pkg.name} is not on the npm registry yet. Set the CI variable ABCD_PACKAGE`);
      expect(unset.stderr).toContain('--vendor');
    });
  }
});

/** A payload as GitHub sends it for the events the workflow listens to (the fields it reads). */
function issueEvent(o: { number: number; labels: string[]; label?: string }): Record<string, unknown> {
  return {
    action: o.label ? 'labeled' : 'created',
    issue: { number: o.number, labels: o.labels.map((name) => ({ name, color: 'ededed' })) },
    ...(o.label ? { label: { name: o.label } } : {}),
  };
}
function commentEvent(o: { number: number; labels: string[]; association: string; type?: string; pr?: boolean }): Record<string, unknown> {
  const issue = issueEvent(o).issue as Record<string, unknown>;
  return {
    action: 'created',
    issue: { ...issue, ...(o.pr ? { pull_request: { url: `https://api.github.com/repos/o/r/pulls/${o.number}` } } : {}) },
    comment: { body: 'please build', author_association: o.association, user: { login: 'someone', type: o.type ?? 'User' } },
  };
}

interface Workflow {
  jobs: Record<string, { steps: Step[]; outputs?: Record<string, string>; if?: string; concurrency?: { group: string } }>;
}

async function generatedWorkflow(): Promise<Workflow> {
  const { dir, env } = await repo();
  await initRepository({ cwd: dir, env, ci: 'github', force: false });
  return parse(await readFile(join(dir, '.github/workflows/abcd-lanes.yml'), 'utf8')) as Workflow;
}

/** Each step's env as the runner computes it from the expressions, by variable name. */
function stepValues(steps: readonly JobStep[], ctx: Context): Record<string, string> {
  return Object.fromEntries(steps.flatMap((s) => Object.entries(s.env).map(([k, v]) => [k, evaluateText(String(v), ctx)])));
}

/** Runs the gate job for one event, and what GitHub then makes of the lane job. */
async function runGate(wf: Workflow, ctx: Context): Promise<{ exit: number; out: string; go: boolean; item?: string; group?: string }> {
  const home = await tempDir('gate');
  const githubEnv = join(home, 'github-env');
  await writeFile(githubEnv, '');
  const steps = jobSteps(wf, 'gate');
  const [report] = await runGithubJob(steps, {
    cwd: home,
    env: { ...isolatedEnv(home), PATH: process.env.PATH!, GITHUB_ENV: githubEnv },
    secrets: stepValues(steps, ctx),
    scratch: join(home, 'runner'),
  });
  const outputs = Object.fromEntries(
    Object.entries(wf.jobs.gate!.outputs!).map(([k, v]) => [k, evaluateText(v, { ...ctx, steps: { who: { outputs: report!.outputs } } })]),
  );
  const next = { ...ctx, needs: { gate: { outputs } } };
  const go = evaluateText(wf.jobs.lane!.if!, next) === 'true';
  return {
    exit: report!.exit!,
    out: report!.out,
    go,
    ...(go ? { item: outputs.item, group: evaluateText(wf.jobs.lane!.concurrency!.group, next) } : {}),
  };
}

const READY = 'abcd:ready';
const on = (event_name: string, event: Record<string, unknown>, extra: Context = {}): Context => ({
  github: { event_name, event },
  inputs: {},
  vars: {},
  ...extra,
});

describe('the generated GitHub workflow starts a lane only for a request, one per item', () => {
  it('builds a labelled issue, one lane per issue and never a cancel', async () => {
    const wf = await generatedWorkflow();
    const r = await runGate(wf, on('issues', issueEvent({ number: 7, labels: [READY, 'bug'], label: READY })));
    expect(r, r.out).toMatchObject({ exit: 0, go: true, item: 'github:issue:7', group: 'abcd-lane-github-issue-7' });
    // Another label on a ready issue is no request.
    const other = await runGate(wf, on('issues', issueEvent({ number: 7, labels: [READY, 'bug'], label: 'bug' })));
    expect(other).toMatchObject({ exit: 0, go: false });
    expect(other.out).toContain(`the label added is not ${READY}`);
  });

  it('a comment starts the lane only from an association the repository trusts, never from a bot or on a pull request', async () => {
    const wf = await generatedWorkflow();
    const comment = (o: Partial<Parameters<typeof commentEvent>[0]>, extra?: Context) =>
      runGate(wf, on('issue_comment', commentEvent({ number: 12, labels: [READY], association: 'COLLABORATOR', ...o }), extra));
    for (const association of ['OWNER', 'MEMBER', 'COLLABORATOR']) {
      expect(await comment({ association })).toMatchObject({
        exit: 0,
        go: true,
        item: 'github:issue:12',
        group: 'abcd-lane-github-issue-12',
      });
    }
    for (const association of ['CONTRIBUTOR', 'FIRST_TIME_CONTRIBUTOR', 'FIRST_TIMER', 'NONE']) {
      const r = await comment({ association });
      expect(r, association).toMatchObject({ exit: 0, go: false });
      expect(r.out).toContain(`the commenter is ${association} here, not one of: OWNER MEMBER COLLABORATOR`);
    }
    // abcd's own result comment comes from the App: a bot, whatever its association.
    expect(await comment({ association: 'NONE', type: 'Bot' })).toMatchObject({ go: false });
    expect(await comment({ association: 'MEMBER', type: 'Bot' })).toMatchObject({ go: false });
    expect(await comment({ pr: true })).toMatchObject({ go: false });
    // A comment on an issue nobody labelled ready starts nothing.
    const unlabelled = await comment({ labels: ['bug'] });
    expect(unlabelled).toMatchObject({ go: false });
    expect(unlabelled.out).toContain(`issue #12 is not labelled ${READY}`);
    // The repository variable narrows (or widens) who may ask.
    const owners = { vars: { LANE_AUTHOR_ASSOCIATIONS: 'OWNER' } };
    expect(await comment({ association: 'MEMBER' }, owners)).toMatchObject({ go: false });
    expect(await comment({ association: 'OWNER' }, owners)).toMatchObject({ go: true });
    expect(await comment({ association: 'CONTRIBUTOR' }, { vars: { LANE_AUTHOR_ASSOCIATIONS: 'OWNER CONTRIBUTOR' } })).toMatchObject({
      go: true,
    });
  });

  it("takes the ready label from the issue source's config, quoted so a label cannot become YAML or shell", async () => {
    const { dir, env } = await repo();
    const label = 'ready: it\'s "go" $(x)';
    await mkdir(join(dir, '.abcd'), { recursive: true });
    await writeFile(join(dir, '.abcd/config.json'), JSON.stringify({ items: { github: { repo: 'o/r', labels: [label, 'team'] } } }));
    await initRepository({ cwd: dir, env, ci: 'github', force: false });
    const wf = parse(await readFile(join(dir, '.github/workflows/abcd-lanes.yml'), 'utf8')) as Workflow;
    expect(await runGate(wf, on('issues', issueEvent({ number: 3, labels: [label], label })))).toMatchObject({
      go: true,
      item: 'github:issue:3',
    });
    expect(await runGate(wf, on('issues', issueEvent({ number: 3, labels: ['abcd:ready'], label: 'abcd:ready' })))).toMatchObject({
      go: false,
    });
    const c = commentEvent({ number: 3, labels: [label], association: 'OWNER' });
    expect(await runGate(wf, on('issue_comment', c))).toMatchObject({ go: true });
  });

  it('a dispatch builds its item or drains; the schedule drains; an item abcd would refuse fails the gate', async () => {
    const wf = await generatedWorkflow();
    expect(await runGate(wf, on('workflow_dispatch', {}, { inputs: { item: 'fix-login' } }))).toMatchObject({
      go: true,
      item: 'fix-login',
      group: 'abcd-lane-fix-login',
    });
    // Dispatched by key, an issue shares its group with the issue's own events.
    expect(await runGate(wf, on('workflow_dispatch', {}, { inputs: { item: 'github:issue:7' } }))).toMatchObject({
      group: 'abcd-lane-github-issue-7',
    });
    expect(await runGate(wf, on('workflow_dispatch', {}, { inputs: { item: '' } }))).toMatchObject({
      go: true,
      item: '',
      group: 'abcd-lane-drain',
    });
    expect(await runGate(wf, on('schedule', {}))).toMatchObject({ go: true, item: '', group: 'abcd-lane-drain' });
    const hostile = await runGate(wf, on('workflow_dispatch', {}, { inputs: { item: 'x"; echo go=true >> "$GITHUB_OUTPUT' } }));
    expect(hostile).toMatchObject({ exit: 2, go: false });
    expect(hostile.out).toContain('is not an item');
    const newline = await runGate(wf, on('workflow_dispatch', {}, { inputs: { item: 'a\ngo=true' } }));
    expect(newline).toMatchObject({ exit: 2, go: false });
  });
});

describe('the generated GitHub lane job, run locally', () => {
  it('an issue event runs the gate, then the lane job installs abcd from a tarball through ABCD_PACKAGE and runs the lane', async () => {
    const remote = await makeRemote();
    const home = await tempDir('lane-job');
    const runnerTemp = join(home, 'runner-temp');
    await mkdir(runnerTemp);
    const githubEnv = join(home, 'github-env');
    await writeFile(githubEnv, '');
    // The package as a team would point ABCD_PACKAGE at it: this checkout's build, packed.
    const packed = join(home, 'packed');
    await mkdir(packed);
    const pack = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packed], {
      cwd: join(import.meta.dirname, '../..'),
      env: { npm_config_cache: join(home, 'npm-cache'), npm_config_update_notifier: 'false' },
    });
    const tarball = join(packed, (JSON.parse(pack.stdout) as Array<{ filename: string }>)[0]!.filename);
    // A global install lands under the runner's npm prefix, whose bin is on PATH (setup-node's).
    const prefix = join(home, 'npm-global');
    const agent = join(home, 'agent.sh');
    await writeFile(agent, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

    const { dir: checkout, env: gitEnv } = await repo();
    await git(checkout, ['remote', 'add', 'origin', remote.url], gitEnv);
    await git(checkout, ['fetch', '-q', 'origin'], gitEnv);
    await git(checkout, ['checkout', '-q', '-b', 'main', 'origin/main'], gitEnv);
    await git(checkout, ['config', 'user.email', 'lane@example.com'], gitEnv);

    const wf = await generatedWorkflow();
    const ctx = on('issues', issueEvent({ number: 7, labels: [READY], label: READY }), {
      vars: { LANE_APP_ID: '4242', LANE_AGENT: agent, ABCD_PACKAGE: tarball },
      secrets: { LANE_APP_PRIVATE_KEY: pem },
    });
    const gate = await runGate(wf, ctx);
    expect(gate, gate.out).toMatchObject({ exit: 0, go: true, item: 'github:issue:7' });

    const job: Record<string, string> = {
      ...isolatedEnv(home),
      PATH: `${prefix}/bin:${process.env.PATH}`,
      RUNNER_TEMP: runnerTemp,
      GITHUB_ENV: githubEnv,
      npm_config_prefix: prefix,
      npm_config_cache: join(home, 'npm-cache'),
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    const steps = jobSteps(wf, 'lane');
    const values = stepValues(steps, { ...ctx, needs: { gate: { outputs: { go: 'true', item: gate.item, group: gate.group } } } });
    // The lane step builds the issue the event named, with the package the variable names.
    expect(values).toMatchObject({ LANE_ITEM: 'github:issue:7', LANE_PACKAGE: tarball, LANE_APP_ID: '4242' });
    const reports = await runGithubJob(steps, {
      cwd: checkout,
      env: job,
      secrets: values,
      scratch: join(home, 'runner'),
      // A job near its end: too little time left for one whole cycle, so a build that got past
      // its item would still refuse before claiming anything (exit 4): the run stays quick.
      before: async (step) => {
        if (step.run.includes('abcd build'))
          await exportVariable(githubEnv, 'ABCD_JOB_DEADLINE', new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, 'Z'));
      },
    });
    const exported = () => exportedEnv(githubEnv);

    // Every step ran for real, the install among them, and each but the lane succeeded.
    expect(reports.filter((r) => !r.ran).map((r) => [r.name, r.why])).toEqual([]);
    for (const r of reports.filter((x) => !x.name.startsWith('Run the lane'))) expect(r.exit, `${r.name}\n${r.out}`).toBe(0);
    // The install put the packed abcd under the prefix: the lane step's `abcd` is that one.
    const installed = join(prefix, 'lib/node_modules/@abcd-lanes/abcd/package.json');
    expect(JSON.parse(await readFile(installed, 'utf8'))).toMatchObject({ name: '@abcd-lanes/abcd' });
    expect(existsSync(join(prefix, 'bin/abcd'))).toBe(true);
    // The sandbox step: the package and the AppArmor knob need root, recorded instead (why:
    // STUBBED_COMMANDS); the sysctl only where the kernel has the knob, as on Ubuntu 24.04.
    expect(reports.map((r) => r.name)).toContain("Let the lane's sandbox start");
    const sandbox = reports.find((r) => r.name === "Let the lane's sandbox start")!;
    expect(STUBBED_COMMANDS.sudo).toMatch(/recorded, not run/);
    const knob = existsSync('/proc/sys/kernel/apparmor_restrict_unprivileged_userns');
    expect(sandbox.stubbed).toEqual([
      'apt-get update -q',
      'apt-get install -y -q bubblewrap socat',
      ...(knob ? ['sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'] : []),
    ]);
    // What it runs for real: bubblewrap is there for the lane's default --sandbox auto.
    expect(sandbox.out).toMatch(/^bubblewrap \d/m);

    // What the steps left for abcd: a deadline it parses, a config dir it reads, 0600 secrets.
    const vars = await exported();
    const firstDeadline = /^ABCD_JOB_DEADLINE=(.+)$/m.exec(await readFile(githubEnv, 'utf8'))![1]!;
    expect(Date.parse(firstDeadline)).toBeGreaterThan(Date.now() + 50 * 60_000);
    const paths = appPaths(vars.ABCD_CONFIG_DIR!);
    expect(paths.dir.startsWith(runnerTemp)).toBe(true);
    const config = await loadAppConfig(paths);
    expect(config).toMatchObject({ appId: '4242' });
    const key = await loadPrivateKey(paths, config);
    expect(key.trim()).toBe(pem.trim());
    // The key as written is one abcd can sign the App's JWT with (installation tokens).
    expect(signAppJwt(config.appId, key, Date.now()).split('.')).toHaveLength(3);
    expect((await stat(join(paths.dir, 'app-key.pem'))).mode & 0o777).toBe(0o600);

    // The installed abcd built the issue the event named. This remote's main sets up no issue
    // source, so the build refuses it by name (exit 2) before it claims anything.
    const lane = reports.at(-1)!;
    expect(lane.name).toBe('Run the lane');
    expect(lane.exit, lane.out).toBe(2);
    expect(lane.out).toContain('github:issue:7 names a GitHub issue, but .abcd/config.json on main has no items.github');
    expect([...(await remote.refs()).keys()].filter((r) => r.startsWith('refs/heads/abcd/'))).toEqual([]);
  }, 180_000);
});
