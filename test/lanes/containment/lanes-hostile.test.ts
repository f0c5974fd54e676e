// The agent's repository is hostile: abcd never runs its hooks or config, and never takes
// objects the agent points at outside its own object store.
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../../harness/git-env.js';
import { laneSession, remoteWithItems } from '../../harness/lanes.js';

describe('hostile agent repository', () => {
  afterAll(cleanupTemp);

  it("abcd runs none of the agent's hooks or config and ignores alternates it planted", async () => {
    const remote = await remoteWithItems([{ slug: 'trap' }]);
    const dir = await tempDir('hostile');
    const pwned = join(dir, 'pwned');
    // A repository of the person's the agent must not smuggle into the push.
    const secret = join(dir, 'secret');
    const env = isolatedEnv(dir);
    await git(dir, ['init', '-q', secret], env);
    await execa('sh', ['-c', 'echo top-secret > secret.txt && git add . && git -c commit.gpgsign=false commit -qm secret'], {
      cwd: secret,
      env,
      extendEnv: false,
    });
    const secretCommit = await git(secret, ['rev-parse', 'HEAD'], env);
    // Runs only outside the agent (abcd's own git has no ABCD_ITEM).
    const trap = `[ -n "$ABCD_ITEM" ] || touch ${pwned}`;
    const agent = [
      'echo work > work.txt',
      `printf '#!/bin/sh\\n${trap}\\n' > .git/hooks/post-commit; chmod +x .git/hooks/post-commit`,
      `printf '#!/bin/sh\\n${trap}\\n' > .git/hooks/pre-push; chmod +x .git/hooks/pre-push`,
      `git config core.fsmonitor '${trap}'`,
      `git config core.hooksPath .git/hooks`,
      `echo ${join(secret, '.git/objects')} >> .git/objects/info/alternates`,
      `git update-ref HEAD ${secretCommit}`,
    ].join('; ');
    const s = await laneSession(remote, 'wary');
    const r = await s.abcd(['build', 'trap', '--json', '--sandbox', 'none', '--agent', agent]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(pwned)).toBe(false);
    const files = (await execa('git', ['-C', remote.dir, 'ls-tree', '-r', '--name-only', 'main'])).stdout;
    expect(files).toContain('work.txt');
    expect(files).not.toContain('secret.txt');
    const has = await execa('git', ['-C', remote.dir, 'cat-file', '-e', secretCommit], { reject: false });
    expect(has.exitCode).not.toBe(0);
  }, 90_000);

  // The agent can rewrite the cycle's folder around its worktree. What abcd does there after the
  // agent ends must never reach outside it through a symlink the agent left (ADR 0023).
  it('symlinks the agent leaves for its worktree or for what abcd writes next to it lead nowhere outside', async () => {
    const remote = await remoteWithItems([{ slug: 'plant' }, { slug: 'swap' }]);
    const dir = await tempDir('outside');
    const outside = join(dir, 'outside');
    const secret = join(dir, 'secret');
    await mkdir(outside);
    await mkdir(secret);
    await writeFile(join(secret, 'secret.txt'), 'top-secret\n');
    const s = await laneSession(remote, 'plain');
    // Where abcd copied the agent's objects and kept its index: symlinks to a folder outside.
    const plant = `echo work > work.txt && git add -A && git -c commit.gpgsign=false commit -qm work && ln -s ${outside} ../quarantine && ln -s ${outside} ../index && rm -f ../usage && ln -s ${join(secret, 'secret.txt')} ../usage`;
    const planted = await s.abcd(['build', 'plant', '--json', '--agent', plant]);
    expect(planted.code, planted.stdout + planted.stderr).toBe(0);
    expect(await readdir(outside)).toEqual([]);
    // The worktree itself swapped for a symlink to a folder the sandbox hid.
    const swap = `echo work > work.txt; cd .. && mv wt wt.old && ln -s ${secret} wt`;
    const swapped = await s.abcd(['build', 'swap', '--json', '--agent', swap]);
    expect(swapped.code, swapped.stdout + swapped.stderr).not.toBe(0);
    expect(swapped.stdout + swapped.stderr).toMatch(/no longer a plain folder/);
    const files = (await execa('git', ['-C', remote.dir, 'ls-tree', '-r', '--name-only', 'main'])).stdout;
    expect(files).toContain('work.txt');
    expect(files).not.toContain('secret.txt');
    const all = (await execa('git', ['-C', remote.dir, 'log', '--all', '--format=%H'])).stdout.split('\n');
    for (const c of all)
      expect((await execa('git', ['-C', remote.dir, 'ls-tree', '-r', '--name-only', c])).stdout).not.toContain('secret.txt');
  }, 90_000);
});
