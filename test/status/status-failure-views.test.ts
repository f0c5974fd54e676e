// failureViews over result records as any view reads them: one entry per item (its latest),
// the kinds a person acts on (timeout, conflict, budget, lost run), an item landed, done or
// at work again left out, nothing older than a day; holder names cut to what differs.
import { describe, expect, it } from 'vitest';
import type { CycleRecord, LaneResultRecord } from '../../src/records/lane-result.js';
import { failureViews } from '../../src/status/failures.js';
import { shortHolderNames } from '../../src/status/short-names.js';

const NOW = Date.UTC(2026, 11, 1, 12);
const HOUR = 3_600_000;
const holder = { person: 'ann@example.com', host: 'vm', session: 's1' };

function run(o: Partial<LaneResultRecord> & { runId: string }): LaneResultRecord {
  return {
    abcd: 'lane',
    v: 1,
    verb: 'drain',
    holder,
    lifecycle: 'poll',
    lanes: 1,
    state: 'finished',
    startedAt: NOW - 2 * HOUR,
    at: NOW - HOUR,
    ttl: 180_000,
    current: [],
    cycles: [],
    deferred: [],
    usage: 0,
    ...o,
  };
}

function cycle(item: string, agoMs: number, o: Partial<CycleRecord>): CycleRecord {
  return { item, outcome: 'failed', startedAt: NOW - agoMs, durationMs: 1000, ...o };
}

describe('failureViews', () => {
  it('lists the latest failure of each item that still waits for a person', () => {
    const runs = [
      run({
        runId: 'r1',
        cycles: [
          cycle('slow', 3 * HOUR, { outcome: 'timeout', reason: 'the agent ran past its timeout of 600s', outputTail: ['still thinking'] }),
          cycle('merge', 2 * HOUR, {
            code: 'conflict',
            conflictFiles: ['src/a.ts', 'src/b.ts'],
            kept: { branch: 'lane/merge/r1-2', head: 'a'.repeat(40) },
          }),
          cycle('fixed', 2 * HOUR, { code: 'agent-failed', exitCode: 1 }),
          cycle('fixed', HOUR, { outcome: 'landed', landed: 'b'.repeat(40) }),
          cycle('old', 30 * HOUR, { code: 'agent-failed', exitCode: 2 }),
          cycle('closed', HOUR, { code: 'agent-failed', exitCode: 2 }),
          cycle('again', 2 * HOUR, { code: 'agent-failed', exitCode: 2 }),
          // An older writer: the check only in its reason's words.
          cycle('legacy', HOUR, {
            code: 'check-failed',
            reason: 'the land check "npm test" failed and no turn to fix it',
            checkTail: ['1 failing', '[abcd] check exited 1'],
          }),
        ],
      }),
      run({ runId: 'r2', end: 'budget-exhausted', deferred: [{ item: 'broke', why: 'the token budget has 0 left' }] }),
      // A run that stopped rewriting its record while working on "orphan".
      run({ runId: 'r3', state: 'running', at: NOW - HOUR, current: [{ item: 'orphan', since: NOW - 2 * HOUR, phase: 'checks' }] }),
      // At work again now: not listed.
      run({ runId: 'r4', state: 'running', at: NOW - 1000, current: [{ item: 'again', since: NOW - 5000 }] }),
    ];
    const views = failureViews({ runs, now: NOW, gone: () => undefined, done: new Set(['closed']) });
    const by = Object.fromEntries(views.map((v) => [v.item, v]));
    expect(Object.keys(by).sort()).toEqual(['broke', 'legacy', 'merge', 'orphan', 'slow']);
    expect(by.slow).toMatchObject({ kind: 'timeout', what: 'the agent ran past its timeout of 600s: still thinking' });
    expect(by.merge).toMatchObject({
      kind: 'conflict',
      what: 'it conflicts with main in src/a.ts, src/b.ts',
      branch: 'lane/merge/r1-2',
      next: ['abcd logs r1 --item merge', 'abcd build merge'],
    });
    expect(by.legacy).toMatchObject({ kind: 'check', check: { name: 'npm test', exitCode: 1 }, lastLine: '1 failing' });
    expect(by.broke).toMatchObject({ kind: 'budget', runId: 'r2', next: ['abcd budget', 'abcd build broke'] });
    expect(by.orphan).toMatchObject({ kind: 'lost', runId: 'r3', what: expect.stringContaining('in the checks phase') });
    // Newest first.
    expect(views.map((v) => v.at)).toEqual([...views.map((v) => v.at)].sort((a, b) => b - a));
  });

  it('cuts holder names to the parts that tell them apart', () => {
    const one = shortHolderNames(['ann@x/vm/s1']);
    expect(one.get('ann@x/vm/s1')).toBe('ann@x');
    const sessions = shortHolderNames(['ann@x/vm/s1', 'ann@x/vm/s2', 'ann@x/vm/s1']);
    expect([...sessions.values()]).toEqual(['s1', 's2']);
    const hosts = shortHolderNames(['ann@x/vm/s1', 'ann@x/ci/s1']);
    expect([...hosts.values()]).toEqual(['vm', 'ci']);
    const people = shortHolderNames(['ann@x/vm/s1', 'bo@x/ci/s1']);
    expect([...people.values()]).toEqual(['ann@x/vm', 'bo@x/ci']);
  });
});
