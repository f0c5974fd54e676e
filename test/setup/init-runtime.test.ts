// `abcd init --runtime` and the CI jobs that follow main's runtime: the config's runtime block,
// the CLI the job installs (pinned, or the variable's), the model key in the lane step only,
// no --agent for a built-in runtime, the next steps init prints, and abcd installed offline
// from the tarball --vendor committed. Generated files are read by parsing them (YAML).
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { init } from '../../src/cli/commands/init.js';
import { envConfig } from '../../src/cli/env-config.js';
import type { Deps } from '../../src/core/deps.js';
import { UsageError } from '../../src/core/refusals.js';
import { RUNTIMES } from '../../src/lanes/runtimes/index.js';
import { initRepository } from '../../src/setup/init.js';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

type Step = { name?: string; uses?: string; run?: string; env?: Record<string, string> };

async function repo(): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await tempDir('init-rt');
  const env = isolatedEnv(dir);
  await git(dir, ['init', '-q'], env);
  return { dir, env };
}

const readConfig = async (dir: string) => JSON.parse(await readFile(join(dir, '.abcd/config.json'), 'utf8'));

describe('abcd init --runtime', () => {
  it("writes lanes.runtime and the runtime's block; Claude Code's model key is named in lanes.claude.env", async () => {
    for (const [runtime, lanes] of [
      ['claude', { runtime: 'claude', claude: {} }],
      ['codex', { runtime: 'codex', codex: {} }],
      ['gemini', { runtime: 'gemini', gemini: {} }],
      ['command', { runtime: 'command' }],
    ] as const) {
      const { dir, env } = await repo();
      const r = await initRepository({ cwd: dir, env, runtime, force: false });
      expect(r.written).toEqual(['.abcd/config.json']);
      expect(await readConfig(dir)).toEqual({ land: { checks: '' }, lanes });
    }
  });

  it("adds the runtime to the person's config, keeps the rest, and refuses to change a runtime it already names", async () => {
    const { dir, env } = await repo();
    await mkdir(join(dir, '.abcd'));
    const mine = { land: { checks: 'make test' }, lanes: { maxCycles: 2, claude: { model: 'claude-sonnet-4-5', env: ['HTTPS_PROXY'] } } };
    await writeFile(join(dir, '.abcd/config.json'), JSON.stringify(mine));
    const r = await initRepository({ cwd: dir, env, runtime: 'claude', force: false });
    expect(r.written).toEqual(['.abcd/config.json']);
    expect(await readConfig(dir)).toEqual({
      land: { checks: 'make test' },
      // The key is named nowhere: in the lane's sandbox abcd's model gateway holds it.
      lanes: { maxCycles: 2, runtime: 'claude', claude: { model: 'claude-sonnet-4-5', env: ['HTTPS_PROXY'] } },
    });
    // Nothing left to add: kept as it is.
    expect((await initRepository({ cwd: dir, env, runtime: 'claude', force: false })).kept).toEqual(['.abcd/config.json']);
    const before = await readFile(join(dir, '.abcd/config.json'), 'utf8');
    const e = await initRepository({ cwd: dir, env, runtime: 'codex', ci: 'github', force: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UsageError);
    expect((e as UsageError).data).toMatchObject({ key: 'lanes.runtime' });
    expect((e as UsageError).message).toContain('already sets lanes.runtime to "claude"');
    expect(await readFile(join(dir, '.abcd/config.json'), 'utf8')).toBe(before);
    expect(existsSync(join(dir, '.github/workflows/abcd-lanes.yml'))).toBe(false);
  });

  it('prints the next steps: commit and push, the secrets and variables to add, how to start a lane, a real check', async () => {
    const { dir, env } = await repo();
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'app', scripts: { test: 'node --test' } }));
    await writeFile(join(dir, 'package-lock.json'), '{}');
    const out = { stdout: () => {}, stderr: () => {}, isTTY: false };
    const deps = { cwd: dir, env, config: envConfig(env), out, remote: 'origin' } as unknown as Deps;
    const args = { json: false, debug: false, remote: 'origin', ci: 'github', runtime: 'claude', force: false };
    const r = await init.run(args, deps, { commands: [] });
    const steps = r.json.steps as string[];
    expect(steps[0]).toBe(
      'commit and push: git add .abcd/config.json .github/workflows/abcd-lanes.yml && git commit -m "abcd: lanes in CI" && git push',
    );
    expect(steps[1]).toContain('secret ANTHROPIC_API_KEY');
    expect(steps[1]).toContain('variable ABCD_PACKAGE');
    expect(steps[1]).toContain('LANE_APP_PRIVATE_KEY');
    expect(steps[1]).not.toContain('LANE_AGENT');
    expect(steps[2]).toContain('run the "abcd lanes" workflow');
    expect(steps[3]).toContain('"land": {"checks": "npm ci && npm test"}');
    expect(r.text).toContain('next:\n  1. commit and push');
    // The command runtime names its agent variable; a repository with no test script gets no check advice.
    const other = await repo();
    const c = await init.run({ ...args, ci: 'gitlab', runtime: 'command' }, { ...deps, cwd: other.dir } as Deps, { commands: [] });
    expect((c.json.steps as string[])[1]).toContain('variable LANE_AGENT');
    expect((c.json.steps as string[])[1]).not.toContain('ANTHROPIC_API_KEY');
    expect(c.json.steps).toHaveLength(3);
  });
});

/** The generated job's pieces: the CLI install lines and the lane lines, for either forge. */
async function jobPieces(
  kind: 'github' | 'gitlab',
): Promise<{ cli: string; lane: string; laneEnv: Record<string, string>; steps: Step[] }> {
  const { dir, env } = await repo();
  await initRepository({ cwd: dir, env, ci: kind, force: false });
  if (kind === 'github') {
    const steps: Step[] = parse(await readFile(join(dir, '.github/workflows/abcd-lanes.yml'), 'utf8')).jobs.lane.steps;
    const cli = steps.find((s) => s.name === "Install the agent's CLI")!;
    const lane = steps.find((s) => s.name === 'Run the lane')!;
    return { cli: cli.run!, lane: lane.run!, laneEnv: lane.env!, steps };
  }
  const script: string[] = parse(await readFile(join(dir, '.gitlab-ci.yml'), 'utf8'))['abcd-lane'].script;
  return {
    cli: script.find((l) => l.includes('case "$runtime"'))!,
    lane: script.find((l) => l.includes('abcd build'))!,
    laneEnv: {},
    steps: [],
  };
}

describe("the generated job follows main's runtime", () => {
  for (const kind of ['github', 'gitlab'] as const) {
    it(`${kind}: installs the runtime's CLI pinned (or the variable's), and runs build or drain with --agent only for the command runtime`, async () => {
      const { cli, lane } = await jobPieces(kind);
      const home = await tempDir('follow');
      const bin = join(home, 'bin');
      await mkdir(bin);
      const log = join(home, 'calls.log');
      for (const name of ['npm', 'abcd', 'claude', 'codex', 'gemini'])
        await writeFile(join(bin, name), `#!/bin/sh\n{ printf '${name}'; printf '|%s' "$@"; echo; } >> '${log}'\n`, { mode: 0o755 });
      const run = async (lanes: unknown, env: Record<string, string>): Promise<string[]> => {
        const work = await tempDir('follow-work');
        await mkdir(join(work, '.abcd'));
        if (lanes !== undefined) await writeFile(join(work, '.abcd/config.json'), JSON.stringify({ lanes }));
        await writeFile(log, '');
        const githubEnv = join(work, 'github-env');
        await writeFile(githubEnv, '');
        const base = { PATH: `${bin}:${process.env.PATH}`, GITHUB_ENV: githubEnv, ABCD_JOB_DEADLINE: '2030-01-01T00:00:00Z', ...env };
        const sh = (script: string, extra: Record<string, string> = {}) =>
          execa('bash', ['-eo', 'pipefail', '-c', script], { cwd: work, env: { ...base, ...extra }, extendEnv: false });
        if (kind === 'github') {
          await sh(cli);
          const runtime = /^LANE_RUNTIME=(.*)$/m.exec(await readFile(githubEnv, 'utf8'))![1]!;
          await sh(lane, { LANE_RUNTIME: runtime });
        } else await sh(`${cli}\n${lane}`);
        return (await readFile(log, 'utf8')).split('\n').filter(Boolean);
      };
      const item = kind === 'github' ? 'github:issue:7' : 'github/issue/7';
      const claude = RUNTIMES.claude.install!;
      expect(await run({ runtime: 'claude' }, { LANE_ITEM: item, LANE_AGENT: 'ignored' })).toEqual([
        `npm|install|--global|--no-audit|--no-fund|${claude.package}@${claude.version}`,
        'claude|--version',
        'abcd|build|github:issue:7|--lifecycle|timed|--deadline|2030-01-01T00:00:00Z|--idle|5s',
      ]);
      expect(await run({ runtime: 'codex' }, { LANE_CODEX_PACKAGE: '/opt/codex.tgz' })).toEqual([
        'npm|install|--global|--no-audit|--no-fund|/opt/codex.tgz',
        'codex|--version',
        'abcd|drain|--lifecycle|timed|--deadline|2030-01-01T00:00:00Z|--idle|2m',
      ]);
      const gemini = RUNTIMES.gemini.install!;
      expect(await run({ runtime: 'gemini' }, {})).toEqual([
        `npm|install|--global|--no-audit|--no-fund|${gemini.package}@${gemini.version}`,
        'gemini|--version',
        'abcd|drain|--lifecycle|timed|--deadline|2030-01-01T00:00:00Z|--idle|2m',
      ]);
      // No config: the command runtime, which installs nothing and runs LANE_AGENT when it is set.
      expect(await run(undefined, { LANE_AGENT: './agent.sh "$ABCD_ITEM"' })).toEqual([
        'abcd|drain|--agent|./agent.sh "$ABCD_ITEM"|--lifecycle|timed|--deadline|2030-01-01T00:00:00Z|--idle|2m',
      ]);
      expect(await run({ agent: './mine.sh' }, {})).toEqual(['abcd|drain|--lifecycle|timed|--deadline|2030-01-01T00:00:00Z|--idle|2m']);
    });
  }

  it('github: the model keys come from named secrets into the lane step only', async () => {
    const { laneEnv, steps } = await jobPieces('github');
    expect(laneEnv).toMatchObject({
      ANTHROPIC_API_KEY: '${{ secrets.ANTHROPIC_API_KEY }}',
      OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}',
      GEMINI_API_KEY: '${{ secrets.GEMINI_API_KEY }}',
    });
    for (const s of steps.filter((x) => x.name !== 'Run the lane')) {
      expect(JSON.stringify(s), s.name ?? s.uses).not.toMatch(/ANTHROPIC_API_KEY|OPENAI_API_KEY/);
    }
  });
});

describe('abcd init --ci --vendor', () => {
  it("writes the running abcd's own tarball, and the job's install step installs it offline from a clean folder", async () => {
    const { dir, env } = await repo();
    const pkg = JSON.parse(await readFile(join(import.meta.dirname, '../../package.json'), 'utf8'));
    const r = await initRepository({ cwd: dir, env, ci: 'github', vendor: true, force: false });
    const vendored = `.abcd/vendor/abcd-${pkg.version}.tgz`;
    expect(r.written).toContain(vendored);
    expect(r.steps[1]).not.toContain('ABCD_PACKAGE');
    const steps: Step[] = parse(await readFile(join(dir, '.github/workflows/abcd-lanes.yml'), 'utf8')).jobs.lane.steps;
    const install = steps.find((s) => s.name === 'Install abcd')!;
    // A clean runner: an empty npm cache, npm told not to touch the network, a fresh global prefix.
    const home = await tempDir('vendor-clean');
    const prefix = join(home, 'prefix');
    const r2 = await execa('bash', ['-eo', 'pipefail', '-c', install.run!], {
      cwd: dir,
      env: {
        ...isolatedEnv(home),
        PATH: `${prefix}/bin:${process.env.PATH}`,
        npm_config_prefix: prefix,
        npm_config_cache: join(home, 'empty-cache'),
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_update_notifier: 'false',
      },
      extendEnv: false,
      reject: false,
    });
    expect(r2.exitCode, r2.stdout + r2.stderr).toBe(0);
    expect(r2.stdout).toContain(`abcd ${pkg.version}`);
    expect(JSON.parse(await readFile(join(prefix, 'lib/node_modules', pkg.name, 'package.json'), 'utf8')).version).toBe(pkg.version);
    // The GitLab job installs the same file.
    const gl = await initRepository({ cwd: dir, env, ci: 'gitlab', vendor: true, force: false });
    expect(gl.written).toContain(vendored);
    const script: string[] = parse(await readFile(join(dir, '.gitlab-ci.yml'), 'utf8'))['abcd-lane'].script;
    expect(script.find((l) => l.includes('npm install --global --offline'))).toContain(`\${ABCD_PACKAGE:-./${vendored}}`);
  }, 60_000);

  it('is refused without --ci, and writes nothing', async () => {
    const { dir, env } = await repo();
    const e = await initRepository({ cwd: dir, env, vendor: true, force: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UsageError);
    expect(existsSync(join(dir, '.abcd'))).toBe(false);
  });
});
