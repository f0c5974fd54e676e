// The GitLab job's rules and resource group, read from the parsed YAML and judged by GitLab's
// documented syntax (test/harness/gitlab-rules.ts): a lane runs for a schedule, the web page,
// the API and a trigger token, never for a push of any branch or tag; the resource group a
// pipeline gets from its item holds only the characters GitLab allows there.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { initRepository } from '../../src/setup/init.js';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';
import { checkRules, evaluateIf, jobRuns, PIPELINE_SOURCES, validResourceGroup } from '../harness/gitlab-rules.js';

afterAll(cleanupTemp);

async function gitlabJob(): Promise<{ rules: unknown; resource_group: string; script: string[] }> {
  const dir = await tempDir('gl-rules');
  const env = isolatedEnv(dir);
  await git(dir, ['init', '-q'], env);
  await initRepository({ cwd: dir, env, ci: 'gitlab', force: false });
  return parse(await readFile(join(dir, '.gitlab-ci.yml'), 'utf8'))['abcd-lane'];
}

describe('the harness reads GitLab expressions as documented', () => {
  it('evaluates comparisons, regexes, && before ||, parentheses and bare variables; refuses what is no syntax', () => {
    const v = { A: 'push', B: 'abcd/claims/x', E: '' };
    expect(evaluateIf('$A == "push"', v)).toBe(true);
    expect(evaluateIf("$A != 'push'", v)).toBe(false);
    expect(evaluateIf('$B =~ /^abcd\\//', v)).toBe(true);
    expect(evaluateIf('$B !~ /^abcd\\//', v)).toBe(false);
    expect(evaluateIf('$A == "web" || $A == "push" && $E', v)).toBe(false);
    expect(evaluateIf('($A == "web" || $A == "push") && $B', v)).toBe(true);
    expect(evaluateIf('$MISSING == null', v)).toBe(true);
    expect(evaluateIf('$E', v)).toBe(false);
    expect(() => evaluateIf('$A = "push"', v)).toThrow(/not GitLab expression syntax/);
    expect(() => evaluateIf('$A == ', v)).toThrow();
    expect(() => checkRules([{ if: '$A', on: 'push' }])).toThrow(/unknown rule key on/);
    expect(() => checkRules([{ when: 'sometimes' }])).toThrow(/unknown when/);
  });
});

describe('abcd init --ci gitlab', () => {
  it('runs the lane for schedules, the web page, the API and trigger tokens only, never for a push', async () => {
    const job = await gitlabJob();
    const rules = checkRules(job.rules);
    const runs = PIPELINE_SOURCES.filter((source) =>
      // Whatever branch or tag the pipeline is for: main, a lane's work branch, a record branch.
      ['main', 'lane/fix-login', 'abcd/claims/local/item/x'].every((branch) =>
        jobRuns(rules, { CI_PIPELINE_SOURCE: source, CI_COMMIT_BRANCH: branch, CI_COMMIT_REF_NAME: branch }),
      ),
    );
    expect(runs.sort()).toEqual(['api', 'schedule', 'trigger', 'web']);
    for (const source of PIPELINE_SOURCES.filter((s) => !runs.includes(s))) {
      for (const ref of [{ CI_COMMIT_BRANCH: 'main' }, { CI_COMMIT_BRANCH: 'lane/x' }, { CI_COMMIT_TAG: 'v1' }]) {
        expect(jobRuns(rules, { CI_PIPELINE_SOURCE: source, ...ref }), `${source} ${JSON.stringify(ref)}`).toBe(false);
      }
    }
  });

  it('derives the resource group from the item with only the characters GitLab allows, and refuses a key with ":"', async () => {
    const job = await gitlabJob();
    for (const item of ['', 'fix-login', 'github/issue/123', 'local/item/a.b_c-d']) {
      const group = job.resource_group.replace('$LANE_ITEM', item);
      expect(validResourceGroup(group), group).toBe(true);
    }
    // The key as abcd writes it would not be a valid group: the job says how to write it instead.
    expect(validResourceGroup(job.resource_group.replace('$LANE_ITEM', 'github:issue:123'))).toBe(false);
    const lane = job.script.find((l) => l.includes('abcd build'))!;
    const bin = await tempDir('gl-bin');
    await execa('bash', ['-c', `printf '#!/bin/sh\\necho "abcd $*"\\n' > ${bin}/abcd && chmod +x ${bin}/abcd`]);
    const run = (item: string) =>
      execa('bash', ['-eo', 'pipefail', '-c', lane], {
        env: { PATH: `${bin}:${process.env.PATH}`, LANE_ITEM: item, LANE_RUNTIME: 'claude', ABCD_JOB_DEADLINE: '2030-01-01T00:00:00Z' },
        extendEnv: false,
        reject: false,
      });
    const ok = await run('github/issue/123');
    expect(ok.stdout).toBe('abcd build github:issue:123 --lifecycle timed --deadline 2030-01-01T00:00:00Z --idle 5s');
    const colon = await run('github:issue:123');
    expect(colon.exitCode).toBe(2);
    expect(colon.stderr).toContain('write LANE_ITEM with / where the key has a colon (github/issue/123)');
  });
});
