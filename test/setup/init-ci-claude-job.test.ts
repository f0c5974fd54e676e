// The generated GitHub lane job, run locally from a clean folder for a repository whose main
// says lanes.runtime "claude": abcd installs offline from the tarball --vendor wrote, the CLI
// step installs Claude Code through the LANE_CLAUDE_PACKAGE variable (here a local package that
// starts the real CLI, the devDependency: this machine has no registry to fetch it from), the
// model key reaches the lane step from its secret, and the real Claude Code, talking to a local
// model server, lands the item with no --agent anywhere.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { initRepository } from '../../src/setup/init.js';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';
import { runGithubJob, type JobStep } from '../harness/github-job.js';
import { remoteWithItems } from '../harness/lanes.js';
import { AnthropicStub, answer, tool, toolStep, workingDirectory } from '../harness/model-server-anthropic.js';

afterAll(cleanupTemp);

const CLAUDE = join(import.meta.dirname, '..', '..', 'node_modules', '.bin', 'claude');

/** A package whose `claude` starts the real CLI: what LANE_CLAUDE_PACKAGE names instead of the registry's. */
async function claudePackage(home: string): Promise<string> {
  const dir = join(home, 'claude-shim');
  await mkdir(dir);
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'claude-shim', version: '1.0.0', bin: { claude: 'claude.sh' } }));
  await writeFile(join(dir, 'claude.sh'), `#!/bin/sh\nexec '${CLAUDE}' "$@"\n`, { mode: 0o755 });
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', home], {
    cwd: dir,
    env: { ...process.env, npm_config_cache: join(home, 'pack-cache') },
  });
  return join(home, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);
}

describe('the generated GitHub job with the claude runtime, run locally', () => {
  it('installs abcd from the vendored tarball and Claude Code, passes the model key, and lands the item', async () => {
    const stub = await AnthropicStub.start();
    try {
      // The shim runs this checkout's Claude Code: the sandbox shows it even where the checkout sits
      // under the temporary folder, which a sandbox replaces with its own.
      const config = { lanes: { runtime: 'claude', claude: {}, bind: [resolve(import.meta.dirname, '..', '..', 'node_modules')] } };
      const remote = await remoteWithItems([{ slug: 'hello' }], config);
      stub.on('local:item:hello', [
        (req) => toolStep(tool.write(join(workingDirectory(req), 'hello.txt'), 'hello from the job\n')),
        toolStep(tool.bash('git add hello.txt && git commit -qm "claude: hello"')),
        answer('hello is done'),
      ]);
      const home = await tempDir('claude-job');
      const shim = await claudePackage(home);
      // The checkout, as actions/checkout leaves it, with what abcd init --vendor wrote.
      const checkout = join(home, 'checkout');
      const gitEnv = isolatedEnv(home);
      await git(home, ['clone', '-q', remote.url, checkout], gitEnv);
      await git(checkout, ['config', 'user.email', 'lane@example.com'], gitEnv);
      const r = await initRepository({ cwd: checkout, env: gitEnv, ci: 'github', vendor: true, force: false });
      expect(r.kept).toEqual(['.abcd/config.json']);
      const wf = parse(await readFile(join(checkout, '.github/workflows/abcd-lanes.yml'), 'utf8'));
      const steps: JobStep[] = (wf.jobs.lane.steps as Array<{ name?: string; run?: string; env?: Record<string, string> }>)
        .filter((s) => s.run)
        .map((s) => ({ name: s.name ?? '', env: s.env ?? {}, run: s.run! }));

      const prefix = join(home, 'npm-global');
      const runnerTemp = join(home, 'runner-temp');
      await mkdir(runnerTemp);
      const githubEnv = join(home, 'github-env');
      await writeFile(githubEnv, '');
      const job = {
        ...isolatedEnv(home),
        PATH: `${prefix}/bin:${process.env.PATH}`,
        RUNNER_TEMP: runnerTemp,
        GITHUB_ENV: githubEnv,
        ABCD_MACHINE_DIR: join(home, 'machine'),
        // The model server stands in for Anthropic's API; lanes.claude.env passes it on.
        ANTHROPIC_BASE_URL: stub.url,
        npm_config_prefix: prefix,
        npm_config_cache: join(home, 'empty-cache'),
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_update_notifier: 'false',
      };
      // What the runner maps from the dispatch's input, the variables and the secrets.
      const values = {
        LANE_ITEM: 'hello',
        LANE_AGENT: '',
        LANE_PACKAGE: '',
        LANE_CLAUDE_PACKAGE: shim,
        LANE_CODEX_PACKAGE: '',
        LANE_APP_ID: '4242',
        LANE_APP_PRIVATE_KEY: 'not a key: this remote is no forge',
        ANTHROPIC_API_KEY: 'sk-stub-not-a-key',
        OPENAI_API_KEY: '',
      };
      const reports = await runGithubJob(steps, {
        cwd: checkout,
        env: job,
        secrets: values,
        scratch: join(home, 'runner'),
        timeoutMs: 150_000,
      });
      for (const rep of reports) expect(rep.exit, `${rep.name}\n${rep.out}`).toBe(0);
      expect(reports.find((x) => x.name === 'Install abcd')!.out).toMatch(/^abcd \d+\.\d+\.\d+$/m);
      expect(reports.find((x) => x.name === "Install the agent's CLI")!.out).toContain('(Claude Code)');
      // Without its key Claude Code stops at "Not logged in" before asking the model: it asked.
      stub.verify();
      const landed = await execa('git', ['-C', remote.dir, 'show', 'main:hello.txt']);
      expect(landed.stdout).toBe('hello from the job');
    } finally {
      await stub.close();
    }
  }, 150_000);
});
