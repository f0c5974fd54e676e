// The steer cap: lanes.steer.max (default 2) bounds steers per run. The third steer
// in a run is not delivered and stays pending on the landed item; the run that reopens it
// (build --reopen) delivers it at the start, lands, and receipts it. Context alone (a
// stranger's steer) starts no run.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { laneRun, laneSession, remoteWithItems } from '../harness/lanes.js';
import { makeSession } from '../harness/session.js';
import { envelopes, landedMailboxes, liveEnvelopes, mailboxAgent, refsUnder, remoteRecord, until } from '../harness/steer.js';

describe('steer cap', () => {
  afterAll(cleanupTemp);

  it('the third steer in a run stays pending and the pending run does it', async () => {
    const remote = await remoteWithItems([{ slug: 'page' }], { lanes: { steer: { poll: '500ms' } } });
    const dir = await tempDir('steer-cap');
    const lane = await laneSession(remote, 'lane', { ABCD_SESSION: 'lane' });
    const build = ['build', 'page', '--json', '--sandbox', 'none', '--agent-timeout', '300s', '--agent', mailboxAgent(dir)];
    const run = lane.abcd(build, { timeoutMs: 150_000 });
    await until('the agent to start', async () => (await readFile(join(dir, 'starts'), 'utf8').catch(() => '')) !== '');
    const asker = await makeSession(remote.url, 'asker', { person: 'lane@example.com' });
    const ids: string[] = [];
    for (const [n, text] of ['steer one', 'steer two', 'steer three'].entries()) {
      const r = await asker.abcd(['steer', 'page', text, '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      ids.push(r.json.id);
      if (n < 2) await until(`envelope ${n + 1}`, async () => (await liveEnvelopes(dir)).length === n + 1);
    }
    // The lane polls every 500ms: four polls later the third has still not been delivered.
    await new Promise((r) => setTimeout(r, 2000));
    expect(await liveEnvelopes(dir)).toHaveLength(2);
    // A stranger's steer is context: it would be delivered, but it starts no run of its own.
    const stranger = await makeSession(remote.url, 'stranger', { person: 'stranger@example.com' });
    const ctxSteer = await stranger.abcd(['steer', 'page', 'context only', '--json']);
    expect(ctxSteer.code).toBe(0);
    expect(ctxSteer.json).toMatchObject({ heldBy: expect.stringMatching(/^lane@example\.com\//), as: 'context' });
    await writeFile(join(dir, 'go'), '');
    const r = await run;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const receipt = await remoteRecord(remote, 'refs/heads/abcd/receipts/local/item/page');
    expect(receipt.consumed).toEqual([
      { kind: 'steer', id: ids[0] },
      { kind: 'steer', id: ids[1] },
    ]);
    const open = await refsUnder(remote, 'refs/heads/abcd/steer/');
    expect(open).toHaveLength(2);
    expect(open).toContain(`refs/heads/abcd/steer/local/item/page/${ids[2]}`);
    // status lists the open requests and the receipt.
    const st = await asker.abcd(['status', '--json']);
    expect(st.code, st.stdout + st.stderr).toBe(0);
    const shown = st.json.steers.map((s: { id: string }) => s.id);
    expect(shown).toHaveLength(2);
    expect(shown).toContain(ids[2]);
    const text = await asker.abcd(['status']);
    expect(text.stdout).toMatch(
      new RegExp(`page ${ids[2]} by lane@example\\.com/.* \\(waiting for the next build or drain\\): steer three`),
    );
    expect(text.stdout).toMatch(
      new RegExp(`page: run ${laneRun(r).runId} absorbed steer ${ids[0]}, steer ${ids[1]}; settled on [0-9a-f]{12}`),
    );
    expect(st.json.receipts).toEqual([
      expect.objectContaining({ item: 'page', runId: laneRun(r).runId, consumed: [`steer ${ids[0]}`, `steer ${ids[1]}`] }),
    ]);

    // The item is done: the open amendment alone does not make it work again.
    const idle = await lane.abcd(build, { timeoutMs: 150_000 });
    expect(idle.code, idle.stdout + idle.stderr).toBe(0);
    expect(idle.json).toMatchObject({ outcome: 'idle' });
    expect(await refsUnder(remote, 'refs/heads/abcd/steer/')).toHaveLength(2);
    // The person reopens it: the waiting steers are delivered, the envelope comes first.
    const next = await lane.abcd([...build, '--reopen'], { timeoutMs: 150_000 });
    expect(next.code, next.stdout + next.stderr).toBe(0);
    expect(laneRun(next).record.cycles.map((c: { outcome: string }) => c.outcome)).toEqual(['landed']);
    const mailboxes = await landedMailboxes(remote);
    expect(mailboxes).toHaveLength(2);
    const [start] = envelopes(mailboxes[1]!);
    expect(start).toContain('| steer three\n');
    expect(start).toMatch(/--- context \d\/2: steer \S+ by stranger@example\.com/);
    const after = await remoteRecord(remote, 'refs/heads/abcd/receipts/local/item/page');
    expect(after.runId).toBe(laneRun(next).runId);
    expect(after.consumed.map((c: { id: string }) => c.id)).toContain(ids[2]);
    expect(await refsUnder(remote, 'refs/heads/abcd/steer/')).toEqual([]);
  }, 150_000);
});
