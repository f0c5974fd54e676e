import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { init } from '../src/cli/commands/init.js';
import type { Deps } from '../src/deps.js';
import { initRepository } from '../src/verbs/init-ci.js';
import { UsageError } from '../src/refusals.js';
import { cleanupTemp, git, isolatedEnv, tempDir } from './harness/git-env.js';

afterAll(cleanupTemp);

async function repo(): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await tempDir('init');
  const env = isolatedEnv(dir);
  await git(dir, ['init', '-q'], env);
  return { dir, env };
}

type Step = { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string> };

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
    expect(lane?.env?.ABCD_APP_PRIVATE_KEY).toBe('${{ secrets.ABCD_APP_PRIVATE_KEY }}');
    expect(lane?.env?.ABCD_ITEM).toBe('${{ inputs.item }}');
    expect(lane?.run).toContain('abcd build "$ABCD_ITEM"');
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
    const before = Date.now();
    await sh(steps[0]!.run!, { GITHUB_ENV: githubEnv });
    const m = /^ABCD_JOB_DEADLINE=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\n$/.exec(await readFile(githubEnv, 'utf8'));
    expect(m).not.toBeNull();
    const deadline = Date.parse(m![1]!);
    expect(deadline - before).toBeGreaterThan(57 * 60_000);
    expect(deadline - before).toBeLessThanOrEqual(58 * 60_000 + 1000);
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
    expect(job.resource_group).toBe('abcd-lane-$ABCD_ITEM');
    expect(ci.variables.ABCD_ITEM.value).toBe('');
    expect(job.rules[0]).toEqual({ if: '$CI_COMMIT_BRANCH =~ /^abcd\\//', when: 'never' });
    // The deadline lines, run as the runner would with its predefined variables.
    const deadlineLines = (job.script as string[]).filter((l) => !l.includes('npm') && !l.includes('abcd build'));
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
    const deps = { cwd: dir, env, out, remote: 'origin' } as unknown as Deps;
    const r = await init.run({ json: true, debug: false, remote: 'origin', ci: 'gitlab', force: false }, deps);
    expect(r.json.written).toEqual(['.abcd/config.json', '.abcd/ci/gitlab-lanes.yml']);
    expect(r.text).toContain('include:\n    - local: .abcd/ci/gitlab-lanes.yml');
    expect(await readFile(join(dir, '.gitlab-ci.yml'), 'utf8')).toBe('test:\n  script: [make]\n');
    expect(parse(await readFile(join(dir, '.abcd/ci/gitlab-lanes.yml'), 'utf8'))['abcd-lane'].resource_group).toBe(
      'abcd-lane-$ABCD_ITEM',
    );
    expect((await stat(join(dir, '.abcd/config.json'))).isFile()).toBe(true);
  });
});
