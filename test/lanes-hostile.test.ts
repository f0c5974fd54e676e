// The agent's repository is hostile: abcd never runs its hooks or config, and never takes
// objects the agent points at outside its own object store.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv, tempDir } from './harness/git-env.js';
import { laneSession, remoteWithItems } from './harness/lanes.js';

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
    await execa('sh', ['-c', 'echo top-secret > secret.txt && git add . && git -c commit.gpgsign=false commit -qm secret'], { cwd: secret, env, extendEnv: false });
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
});
