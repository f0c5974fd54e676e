// The computer's model budget pool: `abcd budget [set <n>] [--usd <d>]`, the command runtime's
// usage lines, the arithmetic on usages, the spend log, and debits from concurrent processes,
// none lost.
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { budgetAllowsCycle, budgetDir, debitBudget, readBudget, setBudget, type Debit } from '../../src/machine/budget/budget.js';
import { readCommandUsage } from '../../src/machine/budget/command-usage.js';
import { MAX_SPEND_ENTRIES, readSpendLog, summarizeSpend } from '../../src/machine/budget/spend-log.js';
import { addUsage, debitedTokens, emptyUsage, MAX_COST_USD, recordedUsage, type CycleUsage } from '../../src/machine/budget/usage.js';
import { systemGateDeps } from '../../src/machine/gate/process.js';
import { BudgetExhausted, RecordTooNew } from '../../src/core/refusals.js';
import { decodeLaneResult, encodeLaneResult, type LaneResultRecord } from '../../src/records/lane-result.js';
import { cleanupTemp, isolatedEnv, tempDir } from '../harness/git-env.js';
import { runAbcd } from '../harness/session.js';
import { ANSWERS } from '../../src/cli/answers.js';

afterAll(cleanupTemp);

const BUDGET_JS = resolve(import.meta.dirname, '../../dist/machine/budget/budget.js');
const MAX = Number.MAX_SAFE_INTEGER;

function tokens(n: number, item = 'fix', runtime = 'command'): Debit {
  return { usage: { ...emptyUsage(), otherTokens: n, turns: 1 }, runtime, item };
}

function usd(d: number, item = 'fix', runtime = 'command'): Debit {
  return { usage: { ...emptyUsage(), costUsd: d, turns: 1 }, runtime, item };
}

/** Gate deps on a clock the test moves. */
function at(ms: { now: number }) {
  return systemGateDeps({ now: () => ms.now, sleep: (t) => new Promise((r) => setTimeout(r, Math.min(t, 10))) }, process.pid);
}

describe('usage lines of the command runtime', () => {
  it('sums {"tokens":n} and the named fields, and counts the malformed lines it ignored', () => {
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
      '{"inputTokens":100,"outputTokens":20,"cacheReadTokens":300,"cacheWriteTokens":4,"costUsd":0.25,"sessionId":"s-1","turns":2}',
      '{"costUsd":-1}',
      '{"costUsd":1e7}',
      '{"inputTokens":5,"model":7}',
      '{"model":"m only"}',
      '{"costUsd":0.5,"model":"later\\u001b[31m"}',
    ].join('\n');
    expect(readCommandUsage(text)).toEqual({
      inputTokens: 100,
      outputTokens: 20,
      cacheReadTokens: 300,
      cacheWriteTokens: 4,
      otherTokens: 1300,
      costUsd: 0.75,
      turns: 5,
      model: 'later?[31m',
      sessionId: 's-1',
      ignoredLines: 10,
    });
    expect(readCommandUsage('')).toEqual(emptyUsage());
  });

  it('10,000 lines of 1e12 tokens sum to 2^53 - 1, not past it', () => {
    const u = readCommandUsage('{"tokens":1e12}\n'.repeat(10_000));
    expect(u).toMatchObject({ otherTokens: MAX, turns: 10_000 });
    expect(debitedTokens(u)).toBe(MAX);
  });
});

describe('usage arithmetic', () => {
  const big: CycleUsage = {
    inputTokens: MAX,
    outputTokens: MAX,
    cacheReadTokens: MAX,
    cacheWriteTokens: MAX,
    costUsd: MAX_COST_USD,
    turns: MAX,
  };

  it('adds every count capped at 2^53 - 1 and dollars capped and finite; the later model and session win', () => {
    const a: CycleUsage = { ...emptyUsage(), inputTokens: 10, costUsd: 0.5, model: 'a', sessionId: 'one' };
    const b: CycleUsage = { ...emptyUsage(), outputTokens: 5, cacheReadTokens: 7, costUsd: 0.25, turns: 1, model: 'b', ignoredLines: 2 };
    expect(addUsage(a, b)).toEqual({
      ...emptyUsage(),
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: 7,
      costUsd: 0.75,
      turns: 1,
      model: 'b',
      sessionId: 'one',
      ignoredLines: 2,
    });
    expect(addUsage(big, big)).toEqual(big);
    const nonsense = { ...emptyUsage(), inputTokens: Number.NaN, outputTokens: -5, costUsd: Number.POSITIVE_INFINITY };
    expect(addUsage(nonsense, emptyUsage())).toEqual({ ...emptyUsage(), costUsd: MAX_COST_USD });
    expect(addUsage({ ...emptyUsage(), costUsd: Number.NaN }, emptyUsage()).costUsd).toBe(0);
  });

  it('debits every kind of token, cache reads and writes included, capped', () => {
    expect(
      debitedTokens({
        ...emptyUsage(),
        inputTokens: 1,
        outputTokens: 20,
        cacheReadTokens: 300,
        cacheWriteTokens: 4000,
        otherTokens: 50000,
      }),
    ).toBe(54321);
    expect(debitedTokens(big)).toBe(MAX);
  });

  it('a cycle result carries the tokens debited and the usage by kind, or nothing when nothing was reported', () => {
    expect(recordedUsage(emptyUsage())).toEqual({});
    expect(recordedUsage({ ...emptyUsage(), ignoredLines: 3 })).toEqual({ spend: { ...emptyUsage(), ignoredLines: 3 } });
    const u = { ...emptyUsage(), inputTokens: 7, costUsd: 0.1, turns: 1, model: 'x'.repeat(300) };
    const r = recordedUsage(u);
    expect(r.usage).toBe(7);
    expect(r.spend?.model).toHaveLength(200);
  });
});

describe('the budget pool', () => {
  it('no pool set: cycles are allowed and debits are only counted', async () => {
    const dir = budgetDir(await tempDir('budget-none'));
    expect(readBudget(dir)).toMatchObject({ pool: null, remaining: null, poolUsd: null, spent: 0 });
    await debitBudget(dir, tokens(50));
    expect(budgetAllowsCycle(dir)).toMatchObject({ allowed: true });
    expect(readBudget(dir)).toMatchObject({ pool: null, spent: 50, debits: 1 });
  });

  it('tokens: at zero no new cycle (budget-exhausted, exit 3), and the pool floors at 0', async () => {
    const dir = budgetDir(await tempDir('budget-empty'));
    await setBudget(dir, { tokens: 100 });
    await debitBudget(dir, tokens(60));
    expect(budgetAllowsCycle(dir)).toMatchObject({ allowed: true, state: { remaining: 40 } });
    await debitBudget(dir, tokens(40));
    const check = budgetAllowsCycle(dir);
    expect(check.allowed).toBe(false);
    const refusal = (check as { refusal: BudgetExhausted }).refusal;
    expect(refusal).toBeInstanceOf(BudgetExhausted);
    expect(refusal).toMatchObject({
      code: 'budget-exhausted',
      exit: 3,
      data: { exhausted: ['tokens'], remaining: 0, pool: 100, spent: 100, poolUsd: null, remainingUsd: null },
    });
    await debitBudget(dir, tokens(7));
    expect(readBudget(dir)).toMatchObject({ remaining: 0, spent: 107, debits: 3 });
  });

  it('dollars, or both: every debit takes both, and the pool is used up when either runs out', async () => {
    const dir = budgetDir(await tempDir('budget-usd'));
    await setBudget(dir, { usd: 1 });
    await debitBudget(dir, tokens(1_000_000));
    expect(budgetAllowsCycle(dir).allowed).toBe(true);
    await debitBudget(dir, usd(0.6));
    expect(readBudget(dir)).toMatchObject({ pool: null, remaining: null, poolUsd: 1, remainingUsd: 0.4, spent: 1_000_000, spentUsd: 0.6 });
    await debitBudget(dir, usd(0.6));
    expect(budgetAllowsCycle(dir)).toMatchObject({
      allowed: false,
      refusal: { data: { exhausted: ['usd'], remainingUsd: 0, spentUsd: 1.2 } },
    });

    await setBudget(dir, { tokens: 1000, usd: 5 });
    await debitBudget(dir, {
      usage: { ...emptyUsage(), inputTokens: 600, outputTokens: 400, costUsd: 0.01 },
      runtime: 'claude',
      item: 'a',
    });
    expect(budgetAllowsCycle(dir)).toMatchObject({
      allowed: false,
      refusal: { data: { exhausted: ['tokens'], remaining: 0, remainingUsd: 4.99 } },
    });
  });

  it('dollars are kept to a billionth: ten debits of 0.1 use up 1 exactly', async () => {
    const dir = budgetDir(await tempDir('budget-cents'));
    await setBudget(dir, { usd: 1 });
    for (let i = 0; i < 10; i++) {
      expect(budgetAllowsCycle(dir).allowed).toBe(true);
      await debitBudget(dir, usd(0.1));
    }
    expect(readBudget(dir)).toMatchObject({ remainingUsd: 0, spentUsd: 1 });
    expect(budgetAllowsCycle(dir).allowed).toBe(false);
  });

  it('a usage of nothing writes nothing', async () => {
    const dir = budgetDir(await tempDir('budget-nothing'));
    await debitBudget(dir, { usage: { ...emptyUsage(), ignoredLines: 4 }, runtime: 'command', item: 'x' });
    expect(readBudget(dir)).toMatchObject({ debits: 0, updatedAt: null });
    expect(readSpendLog(dir).entries).toEqual([]);
  });

  it('usage past what an integer holds is capped, debited and still readable', async () => {
    const usage = readCommandUsage('{"tokens":1e12}\n'.repeat(10_000));
    const dir = budgetDir(await tempDir('budget-huge'));
    await setBudget(dir, { tokens: 100 });
    await debitBudget(dir, { usage, runtime: 'command', item: 'huge' });
    await debitBudget(dir, { usage: { ...usage, costUsd: MAX_COST_USD }, runtime: 'command', item: 'huge' });
    expect(readBudget(dir)).toMatchObject({ pool: 100, remaining: 0, spent: MAX, spentUsd: MAX_COST_USD, debits: 2 });
    expect(budgetAllowsCycle(dir)).toMatchObject({ allowed: false });
    expect(summarizeSpend(readSpendLog(dir), Date.now())).toMatchObject({ debits: 2, tokens: MAX, usd: MAX_COST_USD });
  });

  it('a version 1 pool (tokens only, left below 0) still reads, floored, and the next debit writes version 2', async () => {
    const dir = budgetDir(await tempDir('budget-v1'));
    await setBudget(dir, { tokens: 1 });
    const v1 = { abcd: 'budget', v: 1, pool: 2000, remaining: -500, spent: 2500, debits: 3, setAt: 1000, updatedAt: 2000 };
    await writeFile(join(dir, 'budget.json'), JSON.stringify(v1) + '\n');
    expect(readBudget(dir)).toEqual({
      abcd: 'budget',
      v: 2,
      pool: 2000,
      remaining: 0,
      poolUsd: null,
      remainingUsd: null,
      spent: 2500,
      spentUsd: 0,
      debits: 3,
      setAt: 1000,
      updatedAt: 2000,
    });
    expect(budgetAllowsCycle(dir).allowed).toBe(false);
    await debitBudget(dir, usd(0.5));
    expect(JSON.parse(await readFile(join(dir, 'budget.json'), 'utf8'))).toMatchObject({
      v: 2,
      pool: 2000,
      remaining: 0,
      spent: 2500,
      spentUsd: 0.5,
      debits: 4,
    });
  });

  it('a broken budget file is refused by name, a newer one names both versions, and setting the pool repairs either', async () => {
    const dir = budgetDir(await tempDir('budget-broken'));
    await setBudget(dir, { tokens: 10 });
    await writeFile(join(dir, 'budget.json'), '{"abcd":"budget"');
    expect(() => readBudget(dir)).toThrow(/budget\.json is not JSON/);
    await writeFile(join(dir, 'budget.json'), JSON.stringify({ abcd: 'budget', v: 3 }));
    expect(() => readBudget(dir)).toThrow(RecordTooNew);
    try {
      readBudget(dir);
    } catch (e) {
      expect(e).toMatchObject({ code: 'record-too-new', data: { version: 3, known: 2 } });
    }
    await setBudget(dir, { tokens: 500 });
    expect(readBudget(dir)).toMatchObject({ pool: 500, remaining: 500 });
  });

  it('debits from 6 concurrent processes, 40 each, are all counted, in the pool and the spend log', async () => {
    const dir = budgetDir(await tempDir('budget-race'));
    await setBudget(dir, { tokens: 1000 });
    const usage = JSON.stringify({ ...emptyUsage(), otherTokens: 3, costUsd: 0.01, turns: 1 });
    const script = `const b = await import(${JSON.stringify(BUDGET_JS)}); for (let i = 0; i < 40; i++) await b.debitBudget(process.argv[1], { usage: ${usage}, runtime: 'command', item: 'p' + process.pid });`;
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        execa(process.execPath, ['--input-type=module', '-e', script, dir], { reject: false, timeout: 120_000 }),
      ),
    );
    for (const r of runs) expect(r.exitCode, r.stderr).toBe(0);
    expect(readBudget(dir)).toMatchObject({ pool: 1000, spent: 6 * 40 * 3, remaining: 1000 - 6 * 40 * 3, debits: 240 });
    expect(readBudget(dir).spentUsd).toBeCloseTo(2.4, 9);
    const view = summarizeSpend(readSpendLog(dir), Date.now());
    expect(view).toMatchObject({ debits: 240, tokens: 720, byRuntime: [{ runtime: 'command', debits: 240, tokens: 720 }] });
    expect(view.byItem.map((i) => i.debits)).toEqual([40, 40, 40, 40, 40, 40]);
  }, 150_000);
});

describe('the spend log', () => {
  it('shows the last day per runtime and per item, and keeps nothing older', async () => {
    const dir = budgetDir(await tempDir('budget-log'));
    const clock = { now: Date.UTC(2026, 11, 1, 8) };
    const deps = at(clock);
    await debitBudget(dir, tokens(5000, 'old'), deps);
    clock.now += 20 * 3_600_000;
    await debitBudget(
      dir,
      { usage: { ...emptyUsage(), inputTokens: 100, outputTokens: 50, costUsd: 0.5 }, runtime: 'claude', item: 'a' },
      deps,
    );
    await debitBudget(dir, tokens(70, 'a'), deps);
    await debitBudget(dir, { usage: { ...emptyUsage(), inputTokens: 300, costUsd: 0.125 }, runtime: 'codex', item: 'b' }, deps);
    expect(summarizeSpend(readSpendLog(dir), clock.now)).toMatchObject({ debits: 4, tokens: 5520 });
    clock.now += 5 * 3_600_000;
    const view = summarizeSpend(readSpendLog(dir), clock.now);
    expect(view).toEqual({
      debits: 3,
      tokens: 520,
      usd: 0.625,
      since: clock.now - 86_400_000,
      byRuntime: [
        { runtime: 'codex', debits: 1, tokens: 300, usd: 0.125 },
        { runtime: 'claude', debits: 1, tokens: 150, usd: 0.5 },
        { runtime: 'command', debits: 1, tokens: 70, usd: 0 },
      ],
      byItem: [
        { item: 'b', debits: 1, tokens: 300, usd: 0.125 },
        { item: 'a', debits: 2, tokens: 220, usd: 0.5 },
      ],
      ignored: 0,
    });
    // The next debit drops what is older than a day, and any line that is no debit.
    await writeFile(join(dir, 'spend.jsonl'), (await readFile(join(dir, 'spend.jsonl'), 'utf8')) + 'garbage\n{"at":1}\n');
    expect(readSpendLog(dir).ignored).toBe(2);
    await debitBudget(dir, tokens(1, 'c'), deps);
    const log = readSpendLog(dir);
    expect(log.ignored).toBe(0);
    expect(log.entries.map((e) => e.item)).toEqual(['a', 'a', 'b', 'c']);
  });

  it(`stays bounded: past ${MAX_SPEND_ENTRIES} debits the oldest go and the view says from when it counts`, async () => {
    const dir = budgetDir(await tempDir('budget-bound'));
    const now = Date.UTC(2026, 11, 1, 12);
    const lines = Array.from({ length: MAX_SPEND_ENTRIES + 50 }, (_, i) =>
      JSON.stringify({ at: now - 3_600_000 + i, runtime: 'command', item: 'x', tokens: 1, usd: 0 }),
    );
    await setBudget(dir, { tokens: 10 ** 9 }, at({ now }));
    await writeFile(join(dir, 'spend.jsonl'), lines.join('\n') + '\n');
    await debitBudget(dir, tokens(1, 'y'), at({ now }));
    const log = readSpendLog(dir);
    expect(log.entries).toHaveLength(MAX_SPEND_ENTRIES);
    expect(log.entries.at(-1)).toMatchObject({ item: 'y' });
    const view = summarizeSpend(log, now);
    expect(view.since).toBe(now - 3_600_000 + 51);
    expect(view.debits).toBe(MAX_SPEND_ENTRIES);
  });
});

describe('abcd budget', () => {
  it('shows, sets tokens and dollars, and refuses a bad amount; the pool lives under ABCD_MACHINE_DIR', async () => {
    const home = await tempDir('budget-cli');
    const env = isolatedEnv(home, { ABCD_MACHINE_DIR: join(home, 'machine') });
    const dir = join(home, 'machine/budget');
    const none = await runAbcd(home, ['budget', '--json'], env);
    expect(none.code, none.stderr).toBe(0);
    expect(none.json).toMatchObject({
      ok: true,
      pool: null,
      remaining: null,
      poolUsd: null,
      exhausted: false,
      changed: false,
      lastDay: { debits: 0 },
    });

    const set = await runAbcd(home, ['budget', 'set', '2_000', '--json'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toMatchObject({ pool: 2000, remaining: 2000, spent: 0, poolUsd: null, changed: true });
    expect(JSON.parse(await readFile(join(dir, 'budget.json'), 'utf8'))).toMatchObject({ v: 2, pool: 2000 });

    await debitBudget(dir, tokens(2500, 'fix-login'));
    const shown = await runAbcd(home, ['budget'], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('0 of 2000 tokens left, no dollar limit');
    expect(shown.stdout).toContain('used up (tokens)');
    expect(shown.stdout).toMatch(/per runtime: command 2500 tokens, \$0\.00 in 1 cycle/);
    expect(shown.stdout).toMatch(/fix-login {2}2500 tokens/);

    const both = await runAbcd(home, ['budget', 'set', '1000', '--usd', '$12.50', '--json'], env);
    expect(both.code, both.stderr).toBe(0);
    expect(both.json).toMatchObject({ pool: 1000, poolUsd: 12.5, remainingUsd: 12.5, spent: 0, exhausted: false, exhaustedBy: [] });
    await debitBudget(dir, { usage: { ...emptyUsage(), inputTokens: 10, costUsd: 12.5 }, runtime: 'claude', item: 'b' });
    const out = await runAbcd(home, ['budget', '--json'], env);
    expect(out.json).toMatchObject({ remaining: 990, remainingUsd: 0, exhausted: true, exhaustedBy: ['usd'] });
    for (const answer of [none.json, set.json, both.json, out.json]) expect(ANSWERS.budget!.parse(answer)).toEqual(answer);
    expect(out.json.lastDay).toMatchObject({
      debits: 2,
      tokens: 2510,
      usd: 12.5,
      byRuntime: [
        { runtime: 'command', tokens: 2500 },
        { runtime: 'claude', tokens: 10, usd: 12.5 },
      ],
      byItem: [{ item: 'fix-login' }, { item: 'b' }],
    });
    const usdOnly = await runAbcd(home, ['budget', 'set', '--usd', '25'], env);
    expect(usdOnly.code, usdOnly.stderr).toBe(0);
    expect(usdOnly.stdout).toContain('set: no token limit, $25.00 of $25.00 left');

    for (const bad of [
      ['set', '-5'],
      ['set', 'lots'],
      ['set'],
      ['add', '5'],
      ['set', '--usd', 'ten'],
      ['set', '5', '--usd', '-1'],
      ['--usd', '5'],
    ]) {
      const r = await runAbcd(home, ['budget', ...bad, '--json'], env);
      expect(r.code, bad.join(' ')).toBe(2);
      expect(r.json.refusal.code).toBe('usage');
    }
    expect(readBudget(dir)).toMatchObject({ pool: null, poolUsd: 25 });
  }, 60_000);
});

describe('the lane result record', () => {
  const base: LaneResultRecord = {
    abcd: 'lane',
    v: 1,
    runId: 'r1',
    verb: 'drain',
    holder: { person: 'p@example.com', host: 'h', session: 's' },
    lifecycle: 'once',
    lanes: 1,
    state: 'finished',
    startedAt: 1,
    at: 2,
    ttl: 180_000,
    current: [],
    deferred: [],
    usage: 5,
    cycles: [{ item: 'a', outcome: 'landed', startedAt: 1, durationMs: 3, usage: 5 }],
  };
  const ref = 'refs/heads/abcd/lanes/r1';

  it("reads an older writer's record (no spend, no cost) and a new one with both", () => {
    expect(decodeLaneResult(ref, encodeLaneResult(base))).toEqual(base);
    const spend = { ...emptyUsage(), inputTokens: 5, costUsd: 0.5, turns: 1, model: 'm', ignoredLines: 2 };
    const next = { ...base, costUsd: 0.5, cycles: [{ ...base.cycles[0]!, spend }] };
    expect(decodeLaneResult(ref, encodeLaneResult(next))).toEqual(next);
  });
});
