// `--help` is the manual an agent reads first: every verb in the command table answers it
// (exit 0) with at least one example, and `abcd --help` lists every verb.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { commands } from '../src/cli/commands.js';
import { ENV_VARIABLES } from '../src/config/env.js';
import { cleanupTemp, isolatedEnv, tempDir } from './harness/git-env.js';
import { ABCD_BIN } from './harness/session.js';

const verbOf = (c: (typeof commands)[number]) => String(Array.isArray(c.command) ? c.command[0] : c.command).split(' ')[0]!;

async function help(args: string[]) {
  // Outside any repository, with nothing from this machine's environment.
  const cwd = await tempDir('help');
  const r = await execa(process.execPath, [ABCD_BIN, ...args], { cwd, env: isolatedEnv(cwd), extendEnv: false, reject: false, timeout: 60_000 });
  return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

describe('--help', () => {
  afterAll(cleanupTemp);

  it('abcd --help lists every verb of the command table', async () => {
    const r = await help(['--help']);
    expect(r.code, r.stderr).toBe(0);
    for (const c of commands) expect(r.stdout, verbOf(c)).toMatch(new RegExp(`^\\s+abcd ${verbOf(c)}\\b`, 'm'));
  });

  it('abcd --help lists every environment variable, and every ABCD_ variable in src/ is in that list', async () => {
    const r = await help(['--help']);
    const listed = r.stdout.split(/^Environment:$/m)[1] ?? '';
    for (const [name] of ENV_VARIABLES) expect(listed, name).toMatch(new RegExp(`^\\s+${name}\\s`, 'm'));
    const src = resolve(import.meta.dirname, '../src');
    const files = (await readdir(src, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const named = new Set<string>();
    for (const f of files) for (const m of (await readFile(join(src, f), 'utf8')).matchAll(/\bABCD_[A-Z_]*[A-Z]\b/g)) named.add(m[0]);
    expect([...named].filter((n) => !ENV_VARIABLES.some(([v]) => v === n)).sort(), 'variables abcd names but --help does not list').toEqual([]);
  });

  it.each(commands.map((c) => [verbOf(c), c] as const))('abcd %s --help exits 0 and shows its examples', async (verb, c) => {
    expect(c.examples.length, `${verb} declares no example`).toBeGreaterThan(0);
    const r = await help([verb, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const examples = r.stdout.split(/^Examples:$/m)[1];
    expect(examples, `${verb} --help has no Examples section`).toBeDefined();
    // A long example wraps onto the next line: look for each example's first words, in order.
    let from = 0;
    for (const [i, [example]] of c.examples.entries()) {
      const firstWords = example.split(' ').slice(0, 3).join(' ');
      const at = examples!.indexOf(firstWords, from);
      expect(at, `example ${i + 1} of ${verb} (${firstWords}) is not shown after the one before it`).toBeGreaterThanOrEqual(0);
      from = at + firstWords.length;
    }
  });
});
