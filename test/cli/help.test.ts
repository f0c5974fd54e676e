// `--help` is the manual an agent reads first: every verb in the command table answers it
// (exit 0) with at least one example, and `abcd --help` lists every verb.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { commands } from '../../src/cli/commands.js';
import { ENV_VARIABLES } from '../../src/core/env.js';
import { CI_ONLY_VARIABLES } from '../../src/setup/package-spec.js';
import { cleanupTemp, isolatedEnv, tempDir } from '../harness/git-env.js';
import { ABCD_BIN } from '../harness/session.js';
// The built entry: it finds the texts beside itself in dist/bundle/.
const { helpText } = (await import(
  resolve(import.meta.dirname, '../../dist/bundle/abcd.js')
)) as typeof import('../../src/cli/fast-path.js');

const verbOf = (c: (typeof commands)[number]) => String(Array.isArray(c.command) ? c.command[0] : c.command).split(' ')[0]!;

const MAIN_BUNDLE = resolve(import.meta.dirname, '../../dist/bundle/main.js');

/** What the yargs parser itself prints, bypassing the texts rendered at build time. */
async function parserHelp(args: string[]) {
  const cwd = await tempDir('help');
  const code = `import(${JSON.stringify(MAIN_BUNDLE)}).then((m) => m.main(${JSON.stringify(args)}))`;
  const r = await execa(process.execPath, ['-e', code], { cwd, env: isolatedEnv(cwd), extendEnv: false, reject: false, timeout: 60_000 });
  return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

async function help(args: string[]) {
  // Outside any repository, with nothing from this machine's environment.
  const cwd = await tempDir('help');
  const r = await execa(process.execPath, [ABCD_BIN, ...args], {
    cwd,
    env: isolatedEnv(cwd),
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
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
    const src = resolve(import.meta.dirname, '../../src');
    const files = (await readdir(src, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const named = new Set<string>();
    for (const f of files) for (const m of (await readFile(join(src, f), 'utf8')).matchAll(/\bABCD_[A-Z_]*[A-Z]\b/g)) named.add(m[0]);
    // The generated CI files' own variables (package-spec.ts) are the CI's, never read by abcd.
    const unlisted = [...named].filter((n) => !ENV_VARIABLES.some(([v]) => v === n) && !CI_ONLY_VARIABLES.includes(n));
    expect(unlisted.sort(), 'variables abcd names but --help does not list').toEqual([]);
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

  // abcd --help prints texts rendered at build time (ADR 0044): they must be the parser's, byte for byte.
  const helps: [string, string[]][] = [
    ['(none)', ['--help']],
    ...commands.map((c): [string, string[]] => [verbOf(c), [verbOf(c), '--help']]),
  ];
  it.each(helps)('the --help of %s printed without yargs is exactly what yargs prints', async (_, args) => {
    const [fast, parser] = await Promise.all([help([...args]), parserHelp([...args])]);
    expect(parser.code, parser.stderr).toBe(0);
    expect(fast.code, fast.stderr).toBe(0);
    expect(fast.stdout).toBe(parser.stdout);
  });

  it('a terminal narrower than 100 columns, other arguments or an unknown verb go to yargs', () => {
    expect(helpText(['--help'], 120)).toContain('abcd <verb> [options]');
    expect(helpText(['reserve', '--help'])).toContain('abcd reserve <item>');
    expect(helpText(['--help'], 80)).toBeUndefined();
    expect(helpText(['reserve', '--help', '--json'])).toBeUndefined();
    expect(helpText(['nonesuch', '--help'])).toBeUndefined();
    expect(helpText(['--json', '--help'])).toBeUndefined();
    expect(helpText(['__proto__', '--help'])).toBeUndefined();
  });
});
