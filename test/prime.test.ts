// abcd prime and init --agents: the agent's instructions are made from the
// command table and the refusal codes, and stay in step with them.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../src/cli/commands.js';
import { REFUSALS } from '../src/core/refusal-table.js';
import * as refusals from '../src/core/refusals.js';
import { cleanupTemp } from './harness/git-env.js';
import { makeRemote } from './harness/remote.js';
import { makeSession, type Session } from './harness/session.js';

describe('abcd prime', () => {
  let s: Session;
  beforeAll(async () => {
    s = await makeSession((await makeRemote()).url, 'agent');
  });
  afterAll(cleanupTemp);

  it('every refusal class has a code in the table, with its exit code, and every verb declares its codes', () => {
    const classes = Object.values(refusals as Record<string, unknown>).filter(
      (v): v is new (m: string, d: Record<string, unknown>) => refusals.Refusal =>
        typeof v === 'function' && v.prototype instanceof refusals.Refusal,
    );
    expect(classes.length).toBeGreaterThan(10);
    for (const C of classes) {
      const e = new C('x', { outcome: 'unchanged', ref: 'r' });
      const row = (REFUSALS as Record<string, { exit: number }>)[e.code];
      expect(row, `${C.name} (${e.code}) is missing from src/core/refusal-table.ts`).toBeDefined();
      expect(row!.exit, e.code).toBe(e.exit);
    }
    for (const c of commands) {
      expect(c.refusals, `${String(c.command)} declares no refusal codes`).toBeDefined();
      for (const code of c.refusals!) expect(code in REFUSALS, code).toBe(true);
    }
  });

  it('lists every agent verb in table order, every refusal code with its exit, and the gate codes', async () => {
    const r = await s.abcd(['prime']);
    expect(r.code).toBe(0);
    let at = -1;
    for (const c of commands.filter((x) => x.agentUse)) {
      const i = r.stdout.indexOf(`\`abcd ${String(c.command)}\``);
      expect(i, String(c.command)).toBeGreaterThan(at);
      at = i;
    }
    for (const [code, row] of Object.entries(REFUSALS)) expect(r.stdout).toContain(`| ${row.exit} | \`${code}\` |`);
    expect(r.stdout).toMatch(/124.*125/);
    expect(r.stdout).toContain('never change them');
  });

  it('init --agents writes a marked section into AGENTS.md and updates it in place, keeping the rest', async () => {
    const path = join(s.dir, 'AGENTS.md');
    await writeFile(path, '# Our agents\n\nBe kind.\n');
    const first = await s.abcd(['init', '--agents', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.written).toContain('AGENTS.md');
    const once = await readFile(path, 'utf8');
    expect(once.startsWith('# Our agents\n\nBe kind.\n')).toBe(true);
    expect(once).toContain('<!-- abcd:prime begin');
    expect(once).toContain((await s.abcd(['prime'])).stdout.trim());
    // A stale section is replaced, what follows it kept.
    await writeFile(
      path,
      once.replace(/## Working with other agents: abcd[\s\S]*?<!-- abcd:prime end -->/, 'old text\n<!-- abcd:prime end -->') + '\nAfter.\n',
    );
    const again = await s.abcd(['init', '--agents', '--json']);
    expect(again.json.written).toContain('AGENTS.md');
    const twice = await readFile(path, 'utf8');
    expect(twice).not.toContain('old text');
    expect(twice.match(/abcd:prime begin/g)).toHaveLength(1);
    expect(twice.trimEnd().endsWith('After.')).toBe(true);
    const third = await s.abcd(['init', '--agents', '--json']);
    expect(third.json.kept).toContain('AGENTS.md');
  });
});
