// One team budget on the remote: the person's signed limit bounds every computer's lanes.
// Computers are clones with their own ABCD_MACHINE_DIR (their own pool, gate and sightings),
// draining at once against one bare remote with the command runtime reporting usage.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../../harness/git-env.js';
import { itemStatus, laneSession, remoteWithItems } from '../../harness/lanes.js';
import { LEDGER_REF, LIMIT_REF, remoteLedger, signingPerson, spendingAgent } from '../../harness/team-budget.js';
import { writeRawRecord } from '../../harness/remote.js';

afterAll(cleanupTemp);

const RESERVE = 100;
const USED = 90;

describe('the team budget', () => {
  it('an unsigned budget set --team is refused, typed, and writes nothing', async () => {
    const remote = await remoteWithItems([{ slug: 'one' }]);
    const s = await laneSession(remote, 'nokey');
    const r = await s.abcd(['budget', 'set', '1000', '--team', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(7);
    expect(r.json.refusal).toMatchObject({ code: 'unsafe-environment', data: { reason: 'team-budget-unsigned' } });
    expect((await remote.refs()).has(LIMIT_REF)).toBe(false);
    // A lane never sets it, signed or not.
    const owner = await signingPerson(remote);
    const fromLane = await owner.abcd(['budget', 'set', '1000', '--team', '--json'], { env: { ABCD_LANE: 'lane-1' } });
    expect(fromLane.code, fromLane.stdout + fromLane.stderr).toBe(7);
    expect(fromLane.json.refusal).toMatchObject({ code: 'unsafe-environment', data: { reason: 'lane-writes-settings' } });
    expect((await remote.refs()).has(LIMIT_REF)).toBe(false);
    // Nothing set: the view says so, and lanes are bound by the computer's pool alone.
    const view = await s.abcd(['budget', '--team', '--json']);
    expect(view.code, view.stderr).toBe(0);
    expect(view.json).toMatchObject({ team: true, limit: null, spent: 0, open: [] });
  }, 60_000);

  it.each([
    { computers: 2, lanes: 2, items: 8 },
    { computers: 4, lanes: 1, items: 8 },
  ])(
    '$computers computers draining: spent stays within limit + lanes x reservation, each cycle counted once',
    async (o) => {
      const slugs = Array.from({ length: o.items }, (_, i) => ({ slug: `item-${i}` }));
      const remote = await remoteWithItems(slugs, { lanes: { cycleReserve: RESERVE } });
      const owner = await signingPerson(remote);
      const limit = 350;
      const set = await owner.abcd(['budget', 'set', String(limit), '--team', '--json']);
      expect(set.code, set.stdout + set.stderr).toBe(0);
      expect(set.json).toMatchObject({ team: true, changed: true, protected: true, limit: { tokens: limit, usd: null } });
      const computers = await Promise.all(Array.from({ length: o.computers }, (_, i) => laneSession(remote, `host-${i}`)));
      const runs = await Promise.all(
        computers.map((c) =>
          c.abcd(['drain', '--json', '--lanes', String(o.lanes), '--agent', spendingAgent(USED)], { timeoutMs: 120_000 }),
        ),
      );
      const ledger = (await remoteLedger(remote))!;
      const cycles = runs.flatMap((r) => (r.json.ok ? r.json : r.json.refusal.data.result).record.cycles as { outcome: string }[]);
      const landed = cycles.filter((c) => c.outcome === 'landed').length;
      const totalLanes = o.computers * o.lanes;
      // The bound the ledger promises, and every cycle that ran counted exactly once.
      expect(ledger.spent).toBeLessThanOrEqual(limit + totalLanes * RESERVE);
      expect(ledger.spent).toBeGreaterThanOrEqual(limit - RESERVE);
      expect(ledger.open).toEqual([]);
      expect(ledger.settled).toBe(cycles.length);
      expect(ledger.spent).toBe(cycles.length * USED);
      expect(ledger.expired).toBe(0);
      // Past the pool, no cycle starts anywhere: every run ends budget-exhausted, items left ready.
      for (const r of runs) {
        expect(r.code, r.stdout + r.stderr).toBe(3);
        expect(r.json.refusal).toMatchObject({ code: 'budget-exhausted', data: { scope: 'team', dir: LEDGER_REF } });
      }
      const statuses = await Promise.all(slugs.map((s) => itemStatus(remote, s.slug)));
      expect(statuses.filter((x) => x === 'done')).toHaveLength(landed);
      expect(statuses.filter((x) => x === 'ready').length).toBeGreaterThan(0);
      // The view: the pool, by runtime and item (every computer here has one host name).
      const view = await computers[0]!.abcd(['budget', '--team', '--json']);
      expect(view.code, view.stderr).toBe(0);
      expect(view.json).toMatchObject({ spent: ledger.spent, reserved: { tokens: 0 }, exhausted: true, exhaustedBy: ['tokens'] });
      expect(view.json.byRuntime).toEqual([{ name: 'command', tokens: ledger.spent, usd: 0, cycles: cycles.length }]);
      expect(view.json.byItem).toHaveLength(cycles.length);
      const text = await computers[0]!.abcd(['budget', '--team']);
      expect(text.stdout).toMatch(new RegExp(`team pool: 0 of ${limit} tokens left, no dollar limit; set by owner@example.com/`));
      expect(text.stdout).toContain(`spent ${ledger.spent} tokens`);
      expect(text.stdout).toContain('used up: no new lane cycle starts on any computer');
      expect(text.stdout).toMatch(/per runtime: command \d+ tokens/);
      // The computer's own pool counted the same cycles: the stricter pool is the team's here.
      const local = await computers[0]!.abcd(['budget', '--json']);
      expect(local.json.pool).toBeNull();
    },
    180_000,
  );

  it('a limit not signed by the person is ignored, and with none of theirs behind it no cycle starts', async () => {
    const remote = await remoteWithItems([{ slug: 'one' }], { lanes: { cycleReserve: RESERVE } });
    const owner = await signingPerson(remote);
    expect((await owner.abcd(['budget', 'set', '500', '--team'])).code).toBe(0);
    const signed = (await remote.refs()).get(LIMIT_REF)!;
    // Someone with push access replaces it with an unsigned commit of their own: the owner's clone ignores it.
    const root = (await owner.git(['rev-list', '--max-parents=0', 'origin/main'])).trim();
    const raised = JSON.stringify({
      abcd: 'team-budget',
      v: 1,
      tokens: 1e12,
      usd: null,
      repository: root,
      at: Date.now(),
      by: { person: 'x@example.com', host: 'h', session: 's' },
    });
    const forged = await writeRawRecord(remote.dir, LIMIT_REF, raised);
    const view = await owner.abcd(['budget', '--team', '--json']);
    expect(view.code, view.stdout + view.stderr).toBe(8);
    expect(view.json.refusal).toMatchObject({
      code: 'record-invalid',
      data: { ref: LIMIT_REF, reason: 'team-budget-unsigned', tip: forged },
    });
    const drain = await owner.abcd(['drain', '--json', '--agent', spendingAgent(USED)]);
    expect(drain.code, drain.stdout + drain.stderr).toBe(8);
    expect(drain.json.refusal).toMatchObject({ code: 'record-invalid', data: { reason: 'team-budget-unsigned' } });
    expect(await itemStatus(remote, 'one')).toBe('ready');
    // Set again (signed, on top of the forged tip): it counts.
    expect((await owner.abcd(['budget', 'set', '500', '--team'])).code).toBe(0);
    const after = await owner.abcd(['budget', '--team', '--json']);
    expect(after.json).toMatchObject({ limit: { tokens: 500 }, protected: true });
    expect(after.json.limit.generation).not.toBe(signed);
  }, 90_000);

  it('a ledger newer than this abcd reads is refused by the view and by a drain, never taken for no ledger', async () => {
    const remote = await remoteWithItems([{ slug: 'one' }], { lanes: { cycleReserve: RESERVE } });
    const owner = await signingPerson(remote);
    expect((await owner.abcd(['budget', 'set', '500', '--team'])).code).toBe(0);
    await writeRawRecord(remote.dir, LEDGER_REF, JSON.stringify({ abcd: 'budget-ledger', v: 2, spent: 0 }));
    const view = await owner.abcd(['budget', '--team', '--json']);
    expect(view.code, view.stdout + view.stderr).toBe(6);
    expect(view.json.refusal).toMatchObject({
      code: 'record-too-new',
      data: { ref: LEDGER_REF, kind: 'budget-ledger', version: 2, known: 1 },
    });
    const drain = await owner.abcd(['drain', '--json', '--agent', spendingAgent(USED)]);
    expect(drain.code, drain.stdout + drain.stderr).toBe(6);
    expect(await itemStatus(remote, 'one')).toBe('ready');
  }, 90_000);
});
