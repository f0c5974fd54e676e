import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import yargs from 'yargs';
import type { Command } from '../src/cli/command.js';
import { commands } from '../src/cli/commands.js';
import { init } from '../src/cli/commands/init.js';
import { appPaths, loadAppConfig, loadPrivateKey } from '../src/credentials/app-config.js';
import { signAppJwt } from '../src/credentials/app-jwt.js';
import type { Deps } from '../src/core/deps.js';
import { initRepository } from '../src/setup/init.js';
import { UsageError } from '../src/core/refusals.js';
import { envConfig } from '../src/cli/env-config.js';
import { cleanupTemp, git, isolatedEnv, tempDir } from './harness/git-env.js';
import { makeRemote } from './harness/remote.js';
import { ABCD_BIN } from './harness/session.js';
import { exportedEnv, exportVariable, runGithubJob, SKIPPED_STEPS, STUBBED_COMMANDS, type JobStep } from './harness/github-job.js';

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
    expect(wf.on.push['branches-ignore']).toEqual(['abcd/**']);
    expect(wf.permissions).toEqual({ contents: 'read' });
    const job = wf.jobs.lane;
    expect(job.concurrency).toEqual({ group: "abcd-lane-${{ inputs.item || 'drain' }}", 'cancel-in-progress': false });
    expect(job['timeout-minutes']).toBe(60);
    const steps: Step[] = job.steps;
    const checkout = steps.find((s) => s.uses?.startsWith('actions/checkout@'));
    expect(checkout?.with?.['persist-credentials']).toBe(false);
    const lane = steps.find((s) => s.run?.includes('abcd drain'));
    const key = steps.find((s) => s.run?.includes('ABCD_CONFIG_DIR'));
    expect(key?.env?.LANE_APP_PRIVATE_KEY).toBe('${{ secrets.LANE_APP_PRIVATE_KEY }}');
    // The key reaches only the step that writes it to a private file, never abcd's environment.
    expect(lane?.env?.LANE_APP_PRIVATE_KEY).toBeUndefined();
    expect(lane?.env?.LANE_ITEM).toBe('${{ inputs.item }}');
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
    expect(job.rules[0]).toEqual({ if: '$CI_COMMIT_BRANCH =~ /^abcd\\//', when: 'never' });
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
    .filter((l) => /^abcd\s/.test(l))
    .map((line) => ({
      line,
      verb: line.split(/\s+/)[1]!,
      flags: [...line.matchAll(/(?:^|\s)--([a-z][a-z-]*)/g)].map((m) => m[1]!),
    }));
}

/** Every ABCD_* name abcd's own code reads from the environment (src/, the CI templates aside). */
async function variablesAbcdReads(): Promise<Set<string>> {
  const names = new Set<string>();
  const root = join(import.meta.dirname, '../src');
  for (const f of await readdir(root, { recursive: true })) {
    if (!f.endsWith('.ts') || f.startsWith('ci/')) continue;
    const text = await readFile(join(root, f), 'utf8');
    for (const m of text.matchAll(/env(?:\.|\[\s*['"])(ABCD_[A-Z0-9_]+)|_ENV\s*=\s*'(ABCD_[A-Z0-9_]+)'/g)) names.add((m[1] ?? m[2])!);
  }
  return names;
}

/** A generated CI file as shell steps: each with the variables it sets and its script. */
async function generatedSteps(kind: 'github' | 'gitlab'): Promise<JobStep[]> {
  const { dir, env } = await repo();
  await initRepository({ cwd: dir, env, ci: kind, force: false });
  if (kind === 'github') {
    const wf = parse(await readFile(join(dir, '.github/workflows/abcd-lanes.yml'), 'utf8'));
    return (wf.jobs.lane.steps as Step[]).filter((s) => s.run).map((s) => ({ name: s.name ?? '', env: s.env ?? {}, run: s.run! }));
  }
  const ci = parse(await readFile(join(dir, '.gitlab-ci.yml'), 'utf8'));
  const vars = Object.fromEntries(Object.entries(ci.variables as Record<string, { value: string }>).map(([k, v]) => [k, v.value]));
  return [{ name: 'script', env: vars, run: (ci['abcd-lane'].script as string[]).join('\n') }];
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
      // The lane job runs timed against the job's own deadline.
      for (const c of calls) expect(c.flags).toEqual(expect.arrayContaining(['agent', 'lifecycle', 'deadline']));
    });

    it(`${kind}: every ABCD_ variable it sets is one abcd reads; every other one its own step uses`, async () => {
      const reads = await variablesAbcdReads();
      expect(reads).toContain('ABCD_CONFIG_DIR');
      const steps = await generatedSteps(kind);
      const all = steps.map((s) => s.run).join('\n');
      for (const step of steps) {
        for (const name of Object.keys(step.env)) {
          if (name.startsWith('ABCD_')) expect(reads, `${name} is set but abcd never reads it`).toContain(name);
          else expect(all, `${name} is set but nothing uses it`).toMatch(new RegExp(`\\$\\{?${name}\\b|process\\.env\\.${name}\\b`));
        }
        // Exported for later steps (GITHUB_ENV) or the rest of the script.
        for (const m of step.run.matchAll(/(?:^|\s)(?:export\s+|echo\s+")(ABCD_[A-Z0-9_]+)=/gm)) {
          expect(reads, `${m[1]} is exported but abcd never reads it`).toContain(m[1]);
        }
      }
      expect(all).not.toMatch(/ABCD_APP_ID|ABCD_APP_PRIVATE_KEY/);
    });

    it(`${kind}: gets bubblewrap before the lane, which runs with the default --sandbox auto`, async () => {
      const all = (await generatedSteps(kind)).map((s) => s.run).join('\n');
      expect(all).toMatch(/(^\s*|&& )(sudo )?apt-get install -y -q bubblewrap$/m);
      expect(all.indexOf('install -y -q bubblewrap')).toBeLessThan(all.indexOf('abcd drain'));
      // GitHub's Ubuntu 24.04 runners refuse unprivileged user namespaces until this is lifted.
      if (kind === 'github') expect(all).toMatch(/^\s*sudo sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0$/m);
      for (const c of abcdCalls(all)) expect(c.flags, c.line).not.toContain('sandbox');
    });

    it(`${kind}: installs a Node line that package.json's engines allow`, async () => {
      const pkg = JSON.parse(await readFile(join(import.meta.dirname, '../package.json'), 'utf8'));
      const lowest = Number(/^>=(\d+)$/.exec(pkg.engines.node)?.[1]);
      expect(lowest).toBeGreaterThanOrEqual(22);
      expect(await installedNodeMajor(kind)).toBeGreaterThanOrEqual(lowest);
    });

    it(`${kind}: installs this abcd at its pinned version, never a bare "npm install --global abcd"`, async () => {
      const pkg = JSON.parse(await readFile(join(import.meta.dirname, '../package.json'), 'utf8'));
      const all = (await generatedSteps(kind)).map((s) => s.run).join('\n');
      expect(all).toContain(`npm install --global ${pkg.name}@${pkg.version}`);
      expect(all).not.toMatch(/npm install --global abcd\b(?!@)/);
      expect(pkg.name).not.toBe('abcd');
    });
  }
});

describe('the generated GitHub lane job, run locally', () => {
  it('runs its steps against a bare remote: the deadline, the App config abcd reads, then the lane', async () => {
    const remote = await makeRemote();
    const home = await tempDir('lane-job');
    const runnerTemp = join(home, 'runner-temp');
    await mkdir(runnerTemp);
    const githubEnv = join(home, 'github-env');
    await writeFile(githubEnv, '');
    // The install step needs the registry; `abcd` on PATH is this checkout's build instead.
    const bin = join(home, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'abcd'), `#!/bin/sh\nexec "${process.execPath}" "${ABCD_BIN}" "$@"\n`, { mode: 0o755 });
    const agent = join(home, 'agent.sh');
    await writeFile(agent, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

    const { dir: checkout, env: gitEnv } = await repo();
    await git(checkout, ['remote', 'add', 'origin', remote.url], gitEnv);
    await git(checkout, ['fetch', '-q', 'origin'], gitEnv);
    await git(checkout, ['checkout', '-q', '-b', 'main', 'origin/main'], gitEnv);
    await git(checkout, ['config', 'user.email', 'lane@example.com'], gitEnv);

    const job: Record<string, string> = {
      ...isolatedEnv(home),
      PATH: `${bin}:${process.env.PATH}`,
      RUNNER_TEMP: runnerTemp,
      GITHUB_ENV: githubEnv,
    };
    const secrets = { LANE_APP_ID: '4242', LANE_APP_PRIVATE_KEY: pem, LANE_ITEM: '', LANE_AGENT: agent };
    const reports = await runGithubJob(await generatedSteps('github'), {
      cwd: checkout,
      env: job,
      secrets,
      scratch: join(home, 'runner'),
      // A job near its end: too little time left for one whole cycle. A timed lane must then
      // refuse before claiming anything (exit 4), which makes the run quick and its outcome known.
      before: async (step) => {
        if (step.run.includes('abcd drain'))
          await exportVariable(githubEnv, 'ABCD_JOB_DEADLINE', new Date(Date.now() + 60_000).toISOString().replace(/\.\d+Z$/, 'Z'));
      },
    });
    const exported = () => exportedEnv(githubEnv);

    // Every step ran for real but the install, and nothing else was left out unsaid.
    const skipped = reports.filter((r) => !r.ran);
    expect(skipped.map((r) => [r.name, r.why])).toEqual([['Install abcd', SKIPPED_STEPS[0]!.why]]);
    for (const r of reports.filter((x) => x.ran && !x.name.startsWith('Run the lane'))) expect(r.exit, `${r.name}\n${r.out}`).toBe(0);
    // The sandbox step: the package and the AppArmor knob need root, recorded instead (why:
    // STUBBED_COMMANDS); the sysctl only where the kernel has the knob, as on Ubuntu 24.04.
    expect(reports.map((r) => r.name)).toContain("Let the lane's sandbox start");
    const sandbox = reports.find((r) => r.name === "Let the lane's sandbox start")!;
    expect(STUBBED_COMMANDS.sudo).toMatch(/recorded, not run/);
    const knob = existsSync('/proc/sys/kernel/apparmor_restrict_unprivileged_userns');
    expect(sandbox.stubbed).toEqual([
      'apt-get update -q',
      'apt-get install -y -q bubblewrap',
      ...(knob ? ['sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'] : []),
    ]);
    // What it runs for real: bubblewrap is there for the lane's default --sandbox auto.
    expect(sandbox.out).toMatch(/^bubblewrap \d/m);
    const results = reports.filter((r) => r.ran).map((r) => ({ code: r.exit, out: r.out }));

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

    // The deadline is too short for one whole first cycle: timed exits 4 before claiming anything.
    const lane = results.at(-1)!;
    expect(lane.code, lane.out).toBe(4);
    expect([...(await remote.refs()).keys()].filter((r) => r.startsWith('refs/heads/abcd/'))).toEqual([]);
  }, 180_000);
});
