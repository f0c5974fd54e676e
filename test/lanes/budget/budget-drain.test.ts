// The model budget through real drains with the command runtime: what an agent reports in
// ABCD_USAGE is debited whole, however large or broken, and a pool that runs out stops new
// cycles without marking anything done that did not land.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../../harness/git-env.js';
import { COMMITTING_AGENT, itemStatus, laneSession, mainWorkSubjects, remoteWithItems } from '../../harness/lanes.js';
import type { Session } from '../../harness/session.js';

afterAll(cleanupTemp);

const MAX = Number.MAX_SAFE_INTEGER;

async function poolFile(s: Session): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(join(s.env.ABCD_MACHINE_DIR!, 'budget/budget.json'), 'utf8')) as Record<string, unknown>;
}

/** The agent's usage line, then what it does with the item (fail on `fails`, else commit). */
function agentReporting(line: string): string {
  return `echo '${line}' >> "$ABCD_USAGE"; case "$ABCD_ITEM" in *fails*) echo 'no luck' >&2; exit 1;; esac; ${COMMITTING_AGENT}`;
}

describe('the budget in a drain', () => {
  it('9,100 usage lines of 1e12 tokens and some garbage: the drain ends budget-exhausted, the debit capped and kept', async () => {
    const remote = await remoteWithItems([{ slug: 'huge' }, { slug: 'next' }]);
    const s = await laneSession(remote, 'spendthrift');
    expect((await s.abcd(['budget', 'set', '1000'])).code).toBe(0);
    const lines = `i=0; while [ $i -lt 9100 ]; do echo '{"tokens":1e12}'; i=$((i+1)); done >> "$ABCD_USAGE"; printf 'oops\\n{"tokens":-1}\\n' >> "$ABCD_USAGE"`;
    const spend = `case "$ABCD_ITEM" in *huge) ${lines};; esac; ${COMMITTING_AGENT}`;
    const r = await s.abcd(['drain', '--json', '--lanes', '1', '--agent', spend], { timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal.code).toBe('budget-exhausted');
    const record = r.json.refusal.data.result.record;
    expect(record.cycles).toMatchObject([
      { item: 'huge', outcome: 'landed', usage: MAX, spend: { otherTokens: MAX, turns: 9100, ignoredLines: 2 } },
    ]);
    expect(record.usage).toBe(MAX);
    expect(await poolFile(s)).toMatchObject({ v: 2, pool: 1000, remaining: 0, spent: MAX, debits: 1 });
    expect([await itemStatus(remote, 'huge'), await itemStatus(remote, 'next')]).toEqual(['done', 'ready']);
    // The pool still reads: the next drain is refused by the budget, not by a broken file.
    const again = await s.abcd(['drain', '--json', '--agent', COMMITTING_AGENT]);
    expect(again.code, again.stdout + again.stderr).toBe(3);
    expect(again.json.refusal).toMatchObject({ code: 'budget-exhausted', data: { exhausted: ['tokens'], remaining: 0, spent: MAX } });
    const view = await s.abcd(['budget', '--json']);
    expect(view.code, view.stderr).toBe(0);
    expect(view.json.lastDay).toMatchObject({
      debits: 1,
      tokens: MAX,
      byItem: [{ item: 'huge', tokens: MAX }],
      byRuntime: [{ runtime: 'command' }],
    });
  }, 150_000);

  it("with no pool, two such cycles: the run's totals are capped too, and the pool only counts", async () => {
    const remote = await remoteWithItems([{ slug: 'one' }, { slug: 'two' }]);
    const s = await laneSession(remote, 'unmetered');
    const lines = `i=0; while [ $i -lt 9100 ]; do echo '{"tokens":1e12,"costUsd":1e6}'; i=$((i+1)); done >> "$ABCD_USAGE"`;
    const r = await s.abcd(['drain', '--json', '--lanes', '1', '--agent', `${lines}; ${COMMITTING_AGENT}`], { timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.record.cycles).toMatchObject([
      { item: 'one', outcome: 'landed', usage: MAX, spend: { costUsd: 1e9 } },
      { item: 'two', outcome: 'landed', usage: MAX },
    ]);
    expect(r.json.record).toMatchObject({ usage: MAX, costUsd: 1e9 });
    expect(await poolFile(s)).toMatchObject({ pool: null, remaining: null, spent: MAX, spentUsd: 1e9, debits: 2 });
  }, 150_000);

  it('a budget of N tokens: the cycle that crosses it finishes, no new cycle starts, nothing not landed is marked done', async () => {
    // In key order: a fails after spending, b lands, c crosses the pool and lands, d never starts.
    const remote = await remoteWithItems([{ slug: 'a-fails' }, { slug: 'b-lands' }, { slug: 'c-crosses' }, { slug: 'd-waits' }]);
    const s = await laneSession(remote, 'metered');
    expect((await s.abcd(['budget', 'set', '250'])).code).toBe(0);
    const agent = agentReporting('{"inputTokens":60,"outputTokens":30,"cacheReadTokens":10,"costUsd":0.01,"model":"m1"}');
    const r = await s.abcd(['drain', '--json', '--lanes', '1', '--agent', agent], { timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal.code).toBe('budget-exhausted');
    expect(r.json.refusal.data).toMatchObject({ exhausted: ['tokens'], remaining: 0, pool: 250, spent: 300 });
    const record = r.json.refusal.data.result.record;
    const spend = { inputTokens: 60, outputTokens: 30, cacheReadTokens: 10, cacheWriteTokens: 0, costUsd: 0.01, turns: 1, model: 'm1' };
    expect(record.cycles).toMatchObject([
      { item: 'a-fails', outcome: 'failed', code: 'agent-failed', usage: 100, spend },
      { item: 'b-lands', outcome: 'landed', usage: 100, spend },
      { item: 'c-crosses', outcome: 'landed', usage: 100, spend },
    ]);
    expect(record.cycles).toHaveLength(3);
    expect(record).toMatchObject({ usage: 300, end: 'budget-exhausted' });
    expect(record.costUsd).toBeCloseTo(0.03, 9);
    const statuses = await Promise.all(['a-fails', 'b-lands', 'c-crosses', 'd-waits'].map((i) => itemStatus(remote, i)));
    expect(statuses).toEqual(['ready', 'done', 'done', 'ready']);
    expect((await mainWorkSubjects(remote)).filter((x) => x.startsWith('agent: '))).toEqual([
      'agent: local:item:b-lands',
      'agent: local:item:c-crosses',
    ]);
    expect(await poolFile(s)).toMatchObject({ remaining: 0, spent: 300, debits: 3 });
    // Status names the failed item and the run the budget stopped, with what to look at next.
    const st = await s.abcd(['status']);
    expect(st.stdout).toMatch(/^ {2}a-fails: the agent exited \d+/m);
    expect(st.stdout).toMatch(/ended budget-exhausted .*; next: abcd budget$/m);
    const view = await s.abcd(['budget']);
    expect(view.stdout).toContain('0 of 250 tokens left');
    expect(view.stdout).toMatch(/per runtime: command 300 tokens, \$0\.0300 in 3 cycle/);
  }, 150_000);

  it('a budget of dollars: the cycle that spends the last cent finishes, then budget-exhausted names the dollars', async () => {
    const remote = await remoteWithItems([{ slug: 'one' }, { slug: 'three' }, { slug: 'two' }]);
    const s = await laneSession(remote, 'frugal');
    expect((await s.abcd(['budget', 'set', '--usd', '0.05'])).code).toBe(0);
    const r = await s.abcd(['drain', '--json', '--lanes', '1', '--agent', agentReporting('{"outputTokens":5,"costUsd":0.03}')], {
      timeoutMs: 120_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.refusal.data).toMatchObject({ exhausted: ['usd'], remainingUsd: 0, poolUsd: 0.05, remaining: null, spent: 10 });
    expect(r.json.refusal.data.result.record.cycles).toMatchObject([
      { item: 'one', outcome: 'landed' },
      { item: 'three', outcome: 'landed' },
    ]);
    expect(await itemStatus(remote, 'two')).toBe('ready');
  }, 150_000);
});
