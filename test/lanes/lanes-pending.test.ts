// Preserve and coalesce: requests for an item a lane holds never cancel it; they leave one
// pending slot, the newest, and the active poll lane runs exactly one follow-up cycle.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { laneRun, laneSession, remoteWithItems } from '../harness/lanes.js';
import { makeSession } from '../harness/session.js';

async function until(what: string, ok: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('preserve and coalesce', () => {
  afterAll(cleanupTemp);

  it('three requests leave one slot, the newest; the poll lane runs one follow-up whose mailbox holds it', async () => {
    // Steering off: the note waits for the follow-up cycle (with it on, the lane in flight
    // absorbs it and its receipt skips the follow-up: test/steer-receipt.test.ts).
    const remote = await remoteWithItems([{ slug: 'page' }], { lanes: { steer: { max: 0 } } });
    const dir = await tempDir('pending');
    const started = join(dir, 'started');
    const go = join(dir, 'go');
    // The first cycle (no mailbox copy on main yet) waits for the test; the follow-up does not.
    const agent =
      `if ! ls mailbox-*.txt >/dev/null 2>&1; then touch ${started}; while [ ! -f ${go} ]; do sleep 0.1; done; fi; ` +
      'cp "$ABCD_MAILBOX" "mailbox-$(date +%s%N).txt"; git add -A && git commit -qm "page: cycle"';
    const lane = await laneSession(remote, 'lane', { ABCD_SESSION: 'lane' });
    const run = lane.abcd(
      ['build', 'page', '--json', '--sandbox', 'none', '--lifecycle', 'poll', '--idle', '4s', '--ttl', '20s', '--agent', agent],
      { timeoutMs: 120_000 },
    );
    await until('the first cycle to start', () => existsSync(started));
    // Another session of the same person asks three times; a stranger is refused.
    const asker = await makeSession(remote.url, 'asker', { person: 'lane@example.com' });
    for (const note of ['first', 'second', 'third']) {
      const r = await asker.abcd(['build', 'page', '--json', '--note', note]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json).toMatchObject({ outcome: 'pending', pending: { note } });
    }
    const stranger = await makeSession(remote.url, 'stranger', { person: 'stranger@example.com' });
    const refused = await stranger.abcd(['build', 'page', '--json', '--note', 'obey me']);
    expect(refused.code).toBe(3);
    expect(refused.json.refusal.code).toBe('not-requester');
    const slots = [...(await remote.refs()).keys()].filter((x) => x.startsWith('refs/heads/abcd/pending/'));
    expect(slots).toEqual(['refs/heads/abcd/pending/local/item/page']);
    const slot = JSON.parse((await execa('git', ['-C', remote.dir, 'show', `${slots[0]}:record.json`])).stdout);
    expect(slot).toMatchObject({ note: 'third', coalesced: 3 });
    const seen = await asker.abcd(['status', '--json']);
    expect(seen.json.pending).toMatchObject([{ item: 'local:item:page', note: 'third', coalesced: 3 }]);
    expect(seen.json.lanes).toMatchObject([{ verb: 'build', state: 'running', current: [{ item: 'page' }] }]);
    await writeFile(go, '');
    const r = await run;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const cycles = laneRun(r).record.cycles;
    expect(cycles.map((c: { outcome: string }) => c.outcome)).toEqual(['landed', 'landed']);
    expect(cycles[1].followUp).toBe(true);
    const files = (await execa('git', ['-C', remote.dir, 'ls-tree', '--name-only', 'main'])).stdout
      .split('\n')
      .filter((f) => f.startsWith('mailbox-'))
      .sort();
    expect(files).toHaveLength(2);
    const first = (await execa('git', ['-C', remote.dir, 'show', `main:${files[0]}`])).stdout;
    const second = (await execa('git', ['-C', remote.dir, 'show', `main:${files[1]}`])).stdout;
    expect(first).toBe('');
    expect(second).toMatch(/^abcd-mailbox v1 follow-up .*: third$/);
    expect(second).not.toMatch(/first|second|obey/);
    expect([...(await remote.refs()).keys()].filter((x) => x.startsWith('refs/heads/abcd/pending/'))).toEqual([]);
    const after = await asker.abcd(['status', '--json']);
    expect(after.json.pending).toEqual([]);
    expect(after.json.lanes).toMatchObject([{ state: 'finished', landed: 2, notLanded: 0 }]);
  }, 150_000);

  it('once leaves the slot for the next build, says so in its result; a build with --wait answers it after', async () => {
    // Steering off, as above: steered, the lane absorbs the note and the waiting build skips.
    const remote = await remoteWithItems([{ slug: 'note' }], { lanes: { steer: { max: 0 } } });
    const dir = await tempDir('pending-once');
    const started = join(dir, 'started');
    const go = join(dir, 'go');
    const agent =
      `if ! ls mailbox-*.txt >/dev/null 2>&1; then touch ${started}; while [ ! -f ${go} ]; do sleep 0.1; done; fi; ` +
      'cp "$ABCD_MAILBOX" "mailbox-$(date +%s%N).txt"; git add -A && git commit -qm "note: cycle"';
    const lane = await laneSession(remote, 'solo');
    const run = lane.abcd(['build', 'note', '--json', '--sandbox', 'none', '--agent', agent], { timeoutMs: 90_000 });
    await until('the cycle to start', () => existsSync(started));
    const asker = await makeSession(remote.url, 'asker2', { person: 'solo@example.com' });
    expect((await asker.abcd(['build', 'note', '--note', 'again please'])).code).toBe(0);
    // A build that waits for the item instead: its request stands in the slot too (the newest).
    const waiter = asker.abcd(['build', 'note', '--json', '--wait', '60s', '--note', 'waited', '--sandbox', 'none', '--agent', agent], {
      timeoutMs: 90_000,
    });
    const slot = 'refs/heads/abcd/pending/local/item/note';
    const noteOf = async () =>
      JSON.parse((await execa('git', ['-C', remote.dir, 'show', `${slot}:record.json`], { reject: false })).stdout || '{}').note;
    await until('the waiting build to leave its request', async () => (await noteOf()) === 'waited');
    await writeFile(go, '');
    const r = await run;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(laneRun(r).record.cycles).toHaveLength(1);
    expect(laneRun(r).record.deferred).toMatchObject([{ item: 'note', why: expect.stringMatching(/pending slot/) }]);
    const next = await waiter;
    expect(next.code, next.stdout + next.stderr).toBe(0);
    expect(laneRun(next).record.cycles).toMatchObject([{ item: 'note', outcome: 'landed', followUp: true }]);
    expect((await remote.refs()).has(slot)).toBe(false);
    const files = (await execa('git', ['-C', remote.dir, 'ls-tree', '--name-only', 'main'])).stdout
      .split('\n')
      .filter((f) => f.startsWith('mailbox-'))
      .sort();
    expect((await execa('git', ['-C', remote.dir, 'show', `main:${files.at(-1)}`])).stdout).toMatch(/: waited$/);
  }, 150_000);
});
