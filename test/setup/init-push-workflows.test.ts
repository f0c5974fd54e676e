import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { init } from '../../src/cli/commands/init.js';
import { envConfig } from '../../src/cli/env-config.js';
import type { Deps } from '../../src/core/deps.js';
import { runsOnEveryPush, type PushWorkflow } from '../../src/setup/push-workflows.js';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

// The team's own workflows, as people write them: the ones a push to abcd/ starts, and the ones it does not.
const EVERY_PUSH: Record<string, string> = {
  'ci.yml':
    '# Our tests.\nname: ci\non: push # every branch\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test\n',
  'lint.yaml': 'name: lint\non: [push, pull_request]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make lint\n',
  'docs.yml':
    'name: docs\non:\n  push:\n    # only when the docs change\n    paths:\n      - "docs/**"\n  workflow_dispatch:\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make docs\n',
  'nightly.yml':
    'on:\n  schedule:\n    - cron: "0 3 * * *"\n  push: # and on pushes\njobs:\n  n:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make nightly\n',
};
const FILTERED: Record<string, string> = {
  'deploy.yml': 'on:\n  push:\n    branches: [main]\njobs:\n  d:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make deploy\n',
  'release.yml': 'on:\n  push:\n    tags: ["v*"]\njobs:\n  r:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make release\n',
  'pr.yml': 'on: pull_request\njobs:\n  p:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make test\n',
  'notes.txt': 'on: push\n',
};
// Valid, but written so that inserting a line could not be done without rewriting it.
const INLINE = 'on: {push: {paths: [src]}, pull_request: {}}\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n';

async function repoWith(files: Record<string, string>): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await tempDir('init-push');
  const env = isolatedEnv(dir);
  await git(dir, ['init', '-q'], env);
  await mkdir(join(dir, '.github/workflows'), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, '.github/workflows', name), text);
  return { dir, env };
}

async function runInit(dir: string, env: Record<string, string>, o: { fix?: boolean; ci?: 'github' } = {}) {
  const out = { stdout: () => {}, stderr: () => {}, isTTY: false };
  const deps = { cwd: dir, env, config: envConfig(env), out, remote: 'origin' } as unknown as Deps;
  const args = { json: true, debug: false, remote: 'origin', force: false, fix: o.fix ?? false, ...(o.ci ? { ci: o.ci } : {}) };
  return init.run(args, deps, { commands: [] });
}

const read = (dir: string, name: string) => readFile(join(dir, '.github/workflows', name), 'utf8');

describe('abcd init and the workflows every record push would start', () => {
  it('names each workflow that runs on every push and the filter it needs, and changes no file', async () => {
    const { dir, env } = await repoWith({ ...EVERY_PUSH, ...FILTERED });
    const r = await runInit(dir, env, { ci: 'github' });
    expect(r.json.pushWorkflows).toEqual(
      ['ci.yml', 'docs.yml', 'lint.yaml', 'nightly.yml'].map((n) => ({ path: `.github/workflows/${n}`, state: 'needs-filter' })),
    );
    // abcd's own workflow has no push trigger at all, and is not listed.
    expect(r.json.written).toEqual(['.abcd/config.json', '.github/workflows/abcd-lanes.yml']);
    expect(r.text).toContain("    branches-ignore: ['abcd/**']");
    expect(r.text).toContain('  .github/workflows/ci.yml');
    expect(r.text).toContain('abcd init --fix adds it');
    for (const [name, text] of Object.entries({ ...EVERY_PUSH, ...FILTERED })) expect(await read(dir, name)).toBe(text);
  });

  it('--fix adds the filter under each push trigger, every other line and comment as it was', async () => {
    const { dir, env } = await repoWith({ ...EVERY_PUSH, ...FILTERED });
    const r = await runInit(dir, env, { fix: true });
    expect((r.json.pushWorkflows as PushWorkflow[]).map((w) => w.state)).toEqual(['fixed', 'fixed', 'fixed', 'fixed']);
    expect(r.json.written).toEqual([
      '.abcd/config.json',
      ...['ci.yml', 'docs.yml', 'lint.yaml', 'nightly.yml'].map((n) => `.github/workflows/${n}`),
    ]);
    expect(r.text).not.toContain('these workflows run on every push');
    for (const [name, before] of Object.entries(EVERY_PUSH)) {
      const after = await read(dir, name);
      // The same workflow, now with the filter, and no longer started by a push to abcd/.
      const was = parse(before);
      const now = parse(after);
      expect(now.on.push['branches-ignore'], name).toEqual(['abcd/**']);
      expect(runsOnEveryPush(now), name).toBe(false);
      expect(now.jobs, name).toEqual(was.jobs);
      // Comments stay; lines that were there are all still there, in order.
      for (const comment of before.match(/#.*$/gm) ?? []) expect(after, name).toContain(comment);
      if (typeof was.on === 'object' && !Array.isArray(was.on)) {
        const kept = before.split('\n');
        const lines = after.split('\n');
        expect(
          lines.filter((l) => !l.includes('branches-ignore')),
          name,
        ).toEqual(kept);
      }
    }
    expect(await read(dir, 'docs.yml')).toContain("  push:\n    branches-ignore: ['abcd/**']\n    # only when the docs change\n    paths:");
    expect(await read(dir, 'ci.yml')).toContain("on:\n  push:\n    branches-ignore: ['abcd/**'] # every branch\njobs:");
    expect(parse(await read(dir, 'lint.yaml')).on).toEqual({ push: { 'branches-ignore': ['abcd/**'] }, pull_request: null });
    for (const [name, text] of Object.entries(FILTERED)) expect(await read(dir, name)).toBe(text);
    // Run again: nothing is left to list or fix.
    expect((await runInit(dir, env, { fix: true })).json.pushWorkflows).toEqual([]);
  });

  it('a workflow it cannot edit safely is named with the reason and left byte for byte', async () => {
    const { dir, env } = await repoWith({ 'inline.yml': INLINE, 'ci.yml': EVERY_PUSH['ci.yml']! });
    const r = await runInit(dir, env, { fix: true });
    expect(r.json.pushWorkflows).toEqual([
      { path: '.github/workflows/ci.yml', state: 'fixed' },
      { path: '.github/workflows/inline.yml', state: 'cannot-fix', why: 'its "on:" is written inline ({...})' },
    ]);
    expect(await read(dir, 'inline.yml')).toBe(INLINE);
    expect(r.text).toContain('  .github/workflows/inline.yml (abcd init --fix left it alone: its "on:" is written inline ({...}))');
    expect(r.text).toContain("    branches-ignore: ['abcd/**']");
    expect(r.text).not.toContain('abcd init --fix adds it');
  });

  it('a repository without workflows has nothing to list', async () => {
    const dir = await tempDir('init-push-none');
    const env = isolatedEnv(dir);
    await git(dir, ['init', '-q'], env);
    expect((await runInit(dir, env)).json.pushWorkflows).toEqual([]);
  });

  it('a folder named like a workflow is passed over, and a workflows path that is a file lists nothing', async () => {
    const { dir, env } = await repoWith({ 'ci.yml': EVERY_PUSH['ci.yml']! });
    await mkdir(join(dir, '.github/workflows/old.yml'));
    expect((await runInit(dir, env)).json.pushWorkflows).toEqual([{ path: '.github/workflows/ci.yml', state: 'needs-filter' }]);
    const other = await tempDir('init-push-file');
    const otherEnv = isolatedEnv(other);
    await git(other, ['init', '-q'], otherEnv);
    await mkdir(join(other, '.github'));
    await writeFile(join(other, '.github/workflows'), 'not a folder\n');
    expect((await runInit(other, otherEnv)).json.pushWorkflows).toEqual([]);
  });
});
