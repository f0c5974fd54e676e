// What a cycle does with what it absorbed: a cycle that fails after a steer reached
// its agent writes no receipt and the request stays open; a steer that arrives after the agent
// exited re-invokes it once more in the same worktree, the envelope after ABCD_MAILBOX_FROM
// and as the second turn's text in ABCD_PROMPT.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { laneRun, laneSession, remoteWithItems } from '../harness/lanes.js';
import { makeSession } from '../harness/session.js';
import { envelopes, landedMailboxes, liveEnvelopes, mailboxAgent, refsUnder, remoteRecord, until } from '../harness/steer.js';

const started = async (dir: string) => (await readFile(join(dir, 'starts'), 'utf8').catch(() => '')) !== '';

describe('steered cycles that fail, and re-invocation', () => {
  afterAll(cleanupTemp);

  it('a cycle that failed after absorbing a steer writes no receipt, and the request stays', async () => {
    const remote = await remoteWithItems([{ slug: 'page' }], { lanes: { steer: { poll: '500ms' } } });
    const dir = await tempDir('steer-failed');
    const lane = await laneSession(remote, 'lane', { ABCD_SESSION: 'lane' });
    const run = lane.abcd(
      ['build', 'page', '--json', '--sandbox', 'none', '--agent-timeout', '300s', '--agent', mailboxAgent(dir, { exit: 1 })],
      { timeoutMs: 150_000 },
    );
    await until('the agent to start', () => started(dir));
    const asker = await makeSession(remote.url, 'asker', { person: 'lane@example.com' });
    const s = await asker.abcd(['steer', 'page', 'rename the page', '--json']);
    expect(s.code, s.stdout + s.stderr).toBe(0);
    await until('the envelope', async () => (await liveEnvelopes(dir)).length === 1);
    await writeFile(join(dir, 'go'), '');
    const r = await run;
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(laneRun(r).record.cycles[0]).toMatchObject({ outcome: 'failed', code: 'agent-failed' });
    expect(await refsUnder(remote, 'refs/heads/abcd/receipts/')).toEqual([]);
    expect(await refsUnder(remote, 'refs/heads/abcd/steer/')).toEqual([`refs/heads/abcd/steer/local/item/page/${s.json.id}`]);
    const st = await asker.abcd(['status', '--json']);
    expect(st.json.steers).toEqual([expect.objectContaining({ item: 'page', id: s.json.id, text: 'rename the page' })]);
    expect(st.json.receipts).toEqual([]);
  }, 120_000);

  it('a steer that came while the agent was finishing re-invokes it in the same worktree', async () => {
    // Polls five minutes apart: the only look after the steer is the one when the agent exits.
    const remote = await remoteWithItems([{ slug: 'page' }], { lanes: { steer: { poll: '5m' } } });
    const dir = await tempDir('steer-again');
    const lane = await laneSession(remote, 'lane', { ABCD_SESSION: 'lane' });
    const run = lane.abcd(['build', 'page', '--json', '--sandbox', 'none', '--agent-timeout', '300s', '--agent', mailboxAgent(dir)], {
      timeoutMs: 150_000,
    });
    await until('the agent to start', () => started(dir));
    const asker = await makeSession(remote.url, 'asker', { person: 'lane@example.com' });
    const s = await asker.abcd(['steer', 'page', 'one more thing', '--json']);
    expect(s.code, s.stdout + s.stderr).toBe(0);
    expect(await liveEnvelopes(dir)).toEqual([]);
    await writeFile(join(dir, 'go'), '');
    const r = await run;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(laneRun(r).record.cycles.map((c: { outcome: string }) => c.outcome)).toEqual(['landed']);
    const starts = (await readFile(join(dir, 'starts'), 'utf8')).trim().split('\n');
    expect(starts).toHaveLength(2);
    expect(starts[0]).toBe('round 1 from 0');
    const from = Number(/^round 2 from (\d+)$/.exec(starts[1]!)?.[1]);
    // Both rounds committed a copy of the mailbox; the second holds the envelope from ABCD_MAILBOX_FROM on.
    const copies = await landedMailboxes(remote);
    expect(copies).toHaveLength(2);
    expect(envelopes(copies[0]!)).toEqual([]);
    const again = copies[1]!;
    expect(Buffer.byteLength(again)).toBeGreaterThan(from);
    expect(envelopes(Buffer.from(again).subarray(from).toString())).toHaveLength(1);
    expect(again).toContain('| one more thing');
    // The same session's second turn: its text is the envelope alone; the first was the task.
    expect((await readFile(join(dir, 'turns'), 'utf8')).trim().split('\n')).toEqual(['task 1', 'steer 2']);
    const task = await readFile(join(dir, 'prompt-1'), 'utf8');
    expect(task).toContain('Title: page');
    expect(task).toContain('| Work on page.');
    expect(task).toMatch(/Do not run abcd/);
    const second = await readFile(join(dir, 'prompt-2'), 'utf8');
    expect(envelopes(second)).toHaveLength(1);
    expect(second).toContain('| one more thing');
    const receipt = await remoteRecord(remote, 'refs/heads/abcd/receipts/local/item/page');
    expect(receipt.consumed).toEqual([{ kind: 'steer', id: s.json.id }]);
    expect(await refsUnder(remote, 'refs/heads/abcd/steer/')).toEqual([]);
  }, 120_000);
});
