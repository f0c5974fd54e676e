// The agent's program is the command's first word as the shell reads it, quoted paths and
// escapes included, and a lane that cannot find it refuses by name before it claims anything:
// a missing CLI of a built-in runtime says how to install it or which program key to set.
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { laneSession, remoteWithItems } from '../harness/lanes.js';
import type { BareRemote } from '../harness/remote.js';

afterAll(cleanupTemp);

// The agent, run by node: writes a file and commits it.
const SCRIPT = `require('fs').writeFileSync('built.txt', 'x'); require('child_process').execSync('git add built.txt && git commit -qm agent')`;

async function claims(remote: BareRemote): Promise<string[]> {
  return [...(await remote.refs()).keys()].filter((r) => r.startsWith('refs/heads/abcd/'));
}

describe("the agent's program, found as the shell would find it", () => {
  it('a quoted program path with spaces under /tmp lands in the sandbox; a missing one refuses before any claim', async () => {
    const remote = await remoteWithItems([{ slug: 'quoted' }, { slug: 'missing' }]);
    const s = await laneSession(remote, 'quoter');
    // Under the temporary folder, which the sandbox hides: the program's folder must be shown.
    const dir = join(await tempDir('prog'), 'path with space');
    await mkdir(dir);
    await symlink(process.execPath, join(dir, 'node'));
    const agent = `"${dir}/node" -e "${SCRIPT}"`;
    const r = await s.abcd(['build', 'quoted', '--json', '--sandbox', 'bwrap', '--agent', agent], { timeoutMs: 90_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ sandbox: 'bwrap', outcome: 'landed' });

    const before = await remote.refs();
    const gone = `"${dir}/nowhere/node" -e "${SCRIPT}"`;
    for (const sandbox of ['bwrap', 'none']) {
      const m = await s.abcd(['build', 'missing', '--json', '--sandbox', sandbox, '--agent', gone]);
      expect(m.code, m.stdout + m.stderr).toBe(3);
      expect(m.json.refusal).toMatchObject({
        code: 'agent-not-found',
        data: { word: `${dir}/nowhere/node`, runtime: 'command', fix: '--agent' },
      });
      expect(m.json.refusal.message).toContain(`"${dir}/nowhere/node" is not an executable file`);
      expect(m.json.refusal.message).toContain('nothing was claimed');
    }
    // Nothing was claimed or recorded for the missing one: the remote is as it was.
    expect(await remote.refs()).toEqual(before);
    expect((await claims(remote)).filter((r) => r.includes('missing'))).toEqual([]);
  }, 120_000);

  it.each([
    ['claude', '@anthropic-ai/claude-code@2.1.197', 'lanes.claude.program'],
    ['codex', '@openai/codex@0.171.0', 'lanes.codex.program'],
  ])(
    'a %s lane whose CLI is not on PATH says how to install it or which key to set (exit 3, not 7)',
    async (runtime, pkg, key) => {
      const remote = await remoteWithItems([{ slug: 'no-cli' }]);
      const s = await laneSession(remote, `no-${runtime}`);
      const r = await s.abcd(['build', 'no-cli', '--json', '--runtime', runtime], { env: { PATH: '/usr/bin:/bin' } });
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(r.json.refusal).toMatchObject({
        code: 'agent-not-found',
        data: { word: runtime, runtime, fix: key, install: `npm install --global ${pkg}` },
      });
      expect(r.json.refusal.message).toContain(`npm install --global ${pkg}`);
      expect(r.json.refusal.message).toContain(key);
      expect(await claims(remote)).toEqual([]);
    },
    60_000,
  );
});
