// The agent's process: its program is found inside the sandbox even when it is installed under
// HOME, or the lane says why not and how to fix it before claiming anything; and whatever the
// agent started, a `setsid` daemon included, is gone when its cycle ends, sandboxed or not.
import { chmod, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { laneSession, processesWith, remoteWithItems, killProcessesWith } from '../harness/lanes.js';

const COMMIT = 'echo built > built.txt && git add built.txt && git commit -qm "agent: built"';

async function until(what: string, ok: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the agent's process", () => {
  afterAll(cleanupTemp);

  it('an agent installed in HOME itself is refused naming the sandbox and lanes.bind; with lanes.bind it runs', async () => {
    const remote = await remoteWithItems([{ slug: 'home-agent' }]);
    const s = await laneSession(remote, 'installer');
    const home = s.env.HOME!;
    await writeFile(join(home, 'my-agent'), `#!/bin/sh\n${COMMIT}\n`);
    await chmod(join(home, 'my-agent'), 0o755);
    const env = { PATH: `${home}:${s.env.PATH}` };
    const r = await s.abcd(['build', 'home-agent', '--json', '--sandbox', 'bwrap', '--agent', 'my-agent'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(7);
    expect(r.json.refusal).toMatchObject({
      code: 'unsafe-environment',
      data: { reason: 'agent-hidden-by-sandbox', path: join(home, 'my-agent'), fix: 'lanes.bind' },
    });
    expect(r.json.refusal.message).toMatch(/hides HOME and \/tmp/);
    expect(r.json.refusal.message).toContain('"bind"');
    // Nothing was claimed or recorded.
    expect([...(await remote.refs()).keys()].filter((x) => x.startsWith('refs/heads/abcd/'))).toEqual([]);

    await s.git(['checkout', '-q', 'main']);
    await s.commit('.abcd/config.json', JSON.stringify({ lanes: { bind: ['~/my-agent'] } }), 'bind the agent');
    await s.git(['push', '-q', 'origin', 'main']);
    const bound = await s.abcd(['build', 'home-agent', '--json', '--sandbox', 'bwrap', '--agent', 'my-agent'], { env });
    expect(bound.code, bound.stdout + bound.stderr).toBe(0);
    expect(bound.json).toMatchObject({ sandbox: 'bwrap', outcome: 'landed' });
  }, 90_000);

  it('a `#!/usr/bin/env node` agent installed under HOME, node found through a HOME folder too, runs in the sandbox', async () => {
    const remote = await remoteWithItems([{ slug: 'node-agent' }]);
    const s = await laneSession(remote, 'nvm-user');
    const home = s.env.HOME!;
    // As npm installs a package's bin: a symlink on PATH into the package's folder, which needs its siblings.
    const pkg = join(home, '.local/lib/node_modules/fake-agent');
    await mkdir(pkg, { recursive: true });
    await mkdir(join(home, '.local/bin'), { recursive: true });
    await mkdir(join(home, '.nvm/bin'), { recursive: true });
    await writeFile(join(pkg, 'lib.mjs'), `export const command = ${JSON.stringify(COMMIT)};\n`);
    await writeFile(
      join(pkg, 'cli.mjs'),
      "#!/usr/bin/env node\nimport { execSync } from 'node:child_process';\nimport { command } from './lib.mjs';\nexecSync(command, { stdio: 'inherit' });\n",
    );
    await chmod(join(pkg, 'cli.mjs'), 0o755);
    await symlink('../lib/node_modules/fake-agent/cli.mjs', join(home, '.local/bin/fake-agent'));
    await symlink(process.execPath, join(home, '.nvm/bin/node'));
    const env = { PATH: `${home}/.local/bin:${home}/.nvm/bin:/usr/local/bin:/usr/bin:/bin` };
    const r = await s.abcd(['build', 'node-agent', '--json', '--sandbox', 'bwrap', '--agent', 'fake-agent --print'], { env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ sandbox: 'bwrap', outcome: 'landed' });
  }, 90_000);

  it.each([
    ['in its own pid namespace', false],
    ['without unshare on PATH: swept by its marker', true],
  ])(
    '--sandbox none, attended, %s: a setsid daemon the agent started is gone when the cycle ends',
    async (_how, noUnshare) => {
      const remote = await remoteWithItems([{ slug: 'daemon' }]);
      const s = await laneSession(remote, 'reaper');
      const dir = await tempDir('daemon');
      const env: Record<string, string> = {};
      if (noUnshare) {
        // Every program of the system but unshare.
        const bin = join(dir, 'bin');
        await mkdir(bin);
        for (const d of ['/usr/local/bin', '/usr/bin', '/bin'])
          for (const f of await readdir(d).catch(() => []))
            if (f !== 'unshare') await symlink(join(d, f), join(bin, f)).catch(() => undefined);
        env.PATH = bin;
      }
      const started = join(dir, 'started');
      const marker = `daemon-marker-${process.pid}-${Date.now()}`;
      const daemon = `setsid sh -c 'touch ${started}; while :; do sleep 1; done # ${marker}' >/dev/null 2>&1 < /dev/null &`;
      const agent = `${daemon} while [ ! -f ${started} ]; do sleep 0.1; done; ${COMMIT}`;
      try {
        const r = await s.abcd(['build', 'daemon', '--json', '--sandbox', 'none', '--attended', '--agent', agent], { env });
        expect(r.code, r.stdout + r.stderr).toBe(0);
        expect(r.json).toMatchObject({ sandbox: 'none', outcome: 'landed' });
        // It ran (it left its mark) and is gone, without anyone else killing it.
        expect((await execa('test', ['-f', started], { reject: false })).exitCode).toBe(0);
        await until('the daemon to be gone', async () => (await processesWith(marker)).length === 0, 5_000);
      } finally {
        await killProcessesWith(marker);
      }
    },
    90_000,
  );
});
