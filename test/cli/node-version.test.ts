// bin/abcd under a Node older than it supports says so in one line, before it loads anything,
// instead of running half-way. The old Node is simulated by a preload that rewrites
// process.versions.node, so the test needs no second Node on the machine.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { ABCD_BIN } from '../harness/session.js';

afterAll(cleanupTemp);

async function runAs(version: string, args: string[]) {
  const dir = await tempDir('old-node');
  const preload = join(dir, 'old-node.mjs');
  await writeFile(preload, `Object.defineProperty(process.versions, 'node', { value: ${JSON.stringify(version)} });\n`);
  return execa(process.execPath, ['--import', preload, ABCD_BIN, ...args], {
    cwd: dir,
    reject: false,
    env: { PATH: process.env.PATH ?? '' },
  });
}

describe('bin/abcd on an old Node', () => {
  it('names the Node it found and the one it needs, in one line, exit 7', async () => {
    const r = await runAs('20.20.2', ['status']);
    expect(r.exitCode).toBe(7);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Node 20.20.2');
    expect(lines[0]).toContain(process.execPath);
    expect(lines[0]).toContain('needs Node 22 or later');
  });

  it('answers --json with an unsafe-environment refusal', async () => {
    const r = await runAs('18.19.0', ['reserve', 'x', '--json']);
    expect(r.exitCode).toBe(7);
    const answer = JSON.parse(r.stdout) as { ok: boolean; refusal: { code: string; exit: number; data: { reason: string; why: string } } };
    expect(answer.ok).toBe(false);
    expect(answer.refusal).toMatchObject({ code: 'unsafe-environment', exit: 7, data: { reason: 'node-too-old', why: 'Node 18.19.0' } });
  });

  it('runs as usual on Node 22', async () => {
    const r = await runAs('22.0.0', ['--version']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^abcd \d/);
  });
});
