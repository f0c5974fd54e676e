// The computer's model budget pool: `abcd budget [set <n>]`, usage lines from agents, and
// debits from concurrent processes, none lost.
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { budgetAllowsCycle, budgetDir, debitBudget, parseUsageLines, readBudget, setBudget } from '../src/machine/budget/budget.js';
import { BudgetExhausted } from '../src/core/refusals.js';
import { cleanupTemp, isolatedEnv, tempDir } from './harness/git-env.js';
import { runAbcd } from './harness/session.js';

afterAll(cleanupTemp);

const BUDGET_JS = resolve(import.meta.dirname, '../dist/machine/budget/budget.js');

describe('usage lines', () => {
  it('sums valid lines and counts the malformed ones it ignored', () => {
    const text = [
      '{"tokens":1234}',
      '',
      'not json',
      '{"tokens":-5}',
      '{"tokens":1.5}',
      '[1]',
      '{"tokens":"9"}',
      '{"tokens":66,"model":"x"}',
      '{}',
      '  ',
    ].join('\n');
    expect(parseUsageLines(text)).toEqual({ tokens: 1300, lines: 2, ignored: 6 });
    expect(parseUsageLines('')).toEqual({ tokens: 0, lines: 0, ignored: 0 });
  });
});

describe('the budget pool', () => {
  it('no pool set: cycles are allowed and debits are only counted', async () => {
    const dir = budgetDir(await tempDir('budget-none'));
    expect(readBudget(dir)).toMatchObject({ pool: null, remaining: null, spent: 0 });
    await debitBudget(dir, { tokens: 50 });
    expect(budgetAllowsCycle(dir)).toEqual({ allowed: true, remaining: null });
    expect(readBudget(dir)).toMatchObject({ pool: null, spent: 50, debits: 1 });
  });

  it('at or below zero no new cycle: budget-exhausted, exit 3', async () => {
    const dir = budgetDir(await tempDir('budget-empty'));
    await setBudget(dir, 100);
    await debitBudget(dir, { tokens: 60 });
    expect(budgetAllowsCycle(dir)).toEqual({ allowed: true, remaining: 40 });
    await debitBudget(dir, { tokens: 40 });
    const check = budgetAllowsCycle(dir);
    expect(check.allowed).toBe(false);
    const refusal = (check as { refusal: BudgetExhausted }).refusal;
    expect(refusal).toBeInstanceOf(BudgetExhausted);
    expect(refusal).toMatchObject({ code: 'budget-exhausted', exit: 3, data: { remaining: 0, pool: 100, spent: 100 } });
    await debitBudget(dir, { tokens: 7 });
    expect(budgetAllowsCycle(dir)).toMatchObject({ allowed: false, remaining: -7 });
  });

  it('usage past what an integer holds is capped, debited and still readable (10,000 lines of 1e12 tokens)', async () => {
    const usage = parseUsageLines('{"tokens":1e12}\n'.repeat(10_000));
    expect(usage).toEqual({ tokens: Number.MAX_SAFE_INTEGER, lines: 10_000, ignored: 0 });
    const dir = budgetDir(await tempDir('budget-huge'));
    await setBudget(dir, 100);
    await debitBudget(dir, usage);
    await debitBudget(dir, usage);
    expect(readBudget(dir)).toMatchObject({ pool: 100, remaining: -Number.MAX_SAFE_INTEGER, spent: Number.MAX_SAFE_INTEGER, debits: 2 });
    expect(budgetAllowsCycle(dir)).toMatchObject({ allowed: false });
  });

  it('a broken budget file is refused by name, and setting the pool repairs it', async () => {
    const dir = budgetDir(await tempDir('budget-broken'));
    await setBudget(dir, 10);
    await writeFile(join(dir, 'budget.json'), '{"abcd":"budget"');
    expect(() => readBudget(dir)).toThrow(/budget\.json is not JSON/);
    await setBudget(dir, 500);
    expect(readBudget(dir)).toMatchObject({ pool: 500, remaining: 500 });
  });

  it('debits from 6 concurrent processes, 40 each, are all counted', async () => {
    const dir = budgetDir(await tempDir('budget-race'));
    await setBudget(dir, 1000);
    const script = `const b = await import(${JSON.stringify(BUDGET_JS)}); for (let i = 0; i < 40; i++) await b.debitBudget(process.argv[1], { tokens: 3 });`;
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        execa(process.execPath, ['--input-type=module', '-e', script, dir], { reject: false, timeout: 120_000 }),
      ),
    );
    for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
    expect(readBudget(dir)).toMatchObject({ pool: 1000, spent: 6 * 40 * 3, remaining: 1000 - 6 * 40 * 3, debits: 240 });
  }, 150_000);
});

describe('abcd budget', () => {
  it('shows, sets and refuses a bad amount; the pool lives under ABCD_MACHINE_DIR', async () => {
    const home = await tempDir('budget-cli');
    const env = isolatedEnv(home, { ABCD_MACHINE_DIR: join(home, 'machine') });
    const none = await runAbcd(home, ['budget', '--json'], env);
    expect(none.code, none.stderr).toBe(0);
    expect(none.json).toMatchObject({ ok: true, pool: null, remaining: null, exhausted: false, changed: false });

    const set = await runAbcd(home, ['budget', 'set', '2_000', '--json'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toMatchObject({ pool: 2000, remaining: 2000, spent: 0, changed: true });
    expect(JSON.parse(await readFile(join(home, 'machine/budget/budget.json'), 'utf8'))).toMatchObject({ pool: 2000 });

    await debitBudget(join(home, 'machine/budget'), { tokens: 2500 });
    const shown = await runAbcd(home, ['budget'], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('-500 of 2000 tokens left');
    expect(shown.stdout).toContain('used up');

    for (const bad of [['set', '-5'], ['set', 'lots'], ['set'], ['add', '5']]) {
      const r = await runAbcd(home, ['budget', ...bad, '--json'], env);
      expect(r.code, bad.join(' ')).toBe(2);
      expect(r.json.refusal.code).toBe('usage');
    }
    expect(readBudget(join(home, 'machine/budget'))).toMatchObject({ pool: 2000, remaining: -500 });
  }, 60_000);
});
