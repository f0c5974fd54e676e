// Priorities in the land queue: the rank rule (pure), and real lands in order. A low entry is
// passed only by normal work enqueued within land.priorityAge after it; a high entry goes ahead
// of waiting work but never ahead of the entry under test.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { queueOrder } from '../../src/land/queue/queue-order.js';
import { rankFor } from '../../src/land/queue/priority.js';
import type { QueueEntry } from '../../src/repo/snapshot.js';
import { cleanupTemp, git, tempDir } from '../harness/git-env.js';
import { remoteWithItems } from '../harness/lanes.js';
import { makeSession, type Session } from '../harness/session.js';
import { until } from '../harness/steer.js';

const entry = (item: string, at: number, rank?: number) =>
  ({
    ref: `refs/heads/abcd/queue/local/item/${item}`,
    item,
    tip: '0'.repeat(40),
    entry: { at, ...(rank !== undefined ? { rank } : {}) },
  }) as unknown as QueueEntry;

describe('the rank rule', () => {
  it('moves high earlier and low later by the age, never ahead of the entries under test', () => {
    expect(rankFor({ at: 100_000, priority: 'normal', ageMs: 10_000, testing: [] })).toBe(100_000);
    expect(rankFor({ at: 100_000, priority: 'high', ageMs: 10_000, testing: [] })).toBe(90_000);
    expect(rankFor({ at: 100_000, priority: 'low', ageMs: 10_000, testing: [] })).toBe(110_000);
    // Under test: an entry that ranks at 95 000 (and one without a rank, at 93 000).
    expect(rankFor({ at: 100_000, priority: 'high', ageMs: 10_000, testing: [entry('t', 0, 95_000), entry('u', 93_000)] })).toBe(95_001);
    // A low entry queued 5 s ago is under test: a normal one cannot go ahead of it either.
    expect(rankFor({ at: 100_000, priority: 'normal', ageMs: 10_000, testing: [entry('low', 95_000, 105_000)] })).toBe(105_001);
  });

  it('orders by rank (enqueue time for an entry without one), then by item', () => {
    const order = queueOrder([entry('c', 50, 300), entry('b', 200), entry('a', 200), entry('d', 10, 100)]);
    expect(order.map((q) => q.item)).toEqual(['d', 'a', 'b', 'c']);
  });
});

// Every land's check passes; the first item's waits until the test opens the gate, so the queue
// behind it fills while it is under test.
const CHECK = 'case "$ABCD_LAND_ITEM" in *first) while [ ! -f "$GATE" ]; do sleep 0.1; done;; esac';

async function queueFor(priorityAge: string) {
  const dir = await tempDir('priority');
  const gate = join(dir, 'open');
  const remote = await remoteWithItems([], { land: { checks: CHECK, sandbox: 'none', env: ['GATE'], priorityAge } });
  const session = async (item: string): Promise<Session> => {
    const s = await makeSession(remote.url, item, { env: { ABCD_GATE_SLOTS: '2', GATE: gate } });
    expect((await s.abcd(['reserve', item])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', `work/${item}`]);
    await s.commit(`${item}.txt`, `${item}\n`, `${item}: its file`);
    return s;
  };
  const queued = async (item: string) => (await remote.refs()).has(`refs/heads/abcd/queue/local/item/${item}`);
  const land = (s: Session, item: string, ...extra: string[]) =>
    s.abcd(['land', item, '--json', '--wait', '3m', ...extra], { timeoutMs: 200_000 });
  const landedOrder = async () => {
    const log = await git(remote.dir, ['log', '--first-parent', '--reverse', '--format=%s', 'main'], {});
    return log.split('\n').filter((l) => l.includes(': its file'));
  };
  return { remote, gate, session, queued, land, landedOrder };
}

describe('priorities in real lands', () => {
  afterAll(cleanupTemp);

  it('a low entry is passed by normal work enqueued within priorityAge after it, and not by later work', async () => {
    // An age far longer than a loaded machine takes to start one land, so "within" holds for early.
    const q = await queueFor('15s');
    const [first, low, early, late] = await Promise.all(['first', 'low', 'early', 'late'].map(q.session));
    const runs = [q.land(first!, 'first')];
    await until('first under test', () => q.queued('first'));
    runs.push(q.land(low!, 'low', '--priority', 'low'));
    await until('low queued', () => q.queued('low'));
    runs.push(q.land(early!, 'early'));
    await until('early queued', () => q.queued('early'));
    const st = await low!.abcd(['status']);
    expect(st.stdout).toContain('low (low)');
    // Past the age: later normal work ranks behind the low entry.
    await new Promise((r) => setTimeout(r, 15_500));
    runs.push(q.land(late!, 'late'));
    await until('late queued', () => q.queued('late'));
    await writeFile(q.gate, '');
    const [rFirst, rLow, rEarly, rLate] = await Promise.all(runs);
    for (const r of [rFirst, rLow, rEarly, rLate]) expect(r!.code, r!.stdout + r!.stderr).toBe(0);
    // What abcd measured: early came within the age after low, late after it.
    const at = (r: typeof rLow) => Date.parse(r!.json.enqueuedAt);
    expect(at(rEarly) - at(rLow)).toBeLessThan(15_000);
    expect(at(rLate) - at(rLow)).toBeGreaterThan(15_000);
    expect(await q.landedOrder()).toEqual(['first: its file', 'early: its file', 'low: its file', 'late: its file']);
  }, 240_000);

  it('a high entry goes ahead of waiting work but never ahead of the entry under test', async () => {
    const q = await queueFor('1h');
    const [first, waiting, urgent] = await Promise.all(['first', 'waiting', 'urgent'].map(q.session));
    const runs = [q.land(first!, 'first')];
    await until('first queued', () => q.queued('first'));
    runs.push(q.land(waiting!, 'waiting'));
    await until('waiting queued', () => q.queued('waiting'));
    runs.push(q.land(urgent!, 'urgent', '--priority', 'high'));
    await until('urgent queued', () => q.queued('urgent'));
    await writeFile(q.gate, '');
    const results = await Promise.all(runs);
    for (const r of results) expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await q.landedOrder()).toEqual(['first: its file', 'urgent: its file', 'waiting: its file']);
    // The entry under test was never re-tested: nothing ranked ahead of it.
    expect(results[0]!.json.attempts).toBe(1);
    expect(results[0]!.json.checks).toHaveLength(1);
  }, 240_000);
});
