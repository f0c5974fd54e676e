// The seed's handshake: a CI job queued behind the lane on an item
// (`abcd build --wait`) leaves its request in the pending slot; the lane in flight absorbs its
// note and its landing records the receipt; the queued build then exits 0 without its agent.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { remoteWithItems } from '../harness/lanes.js';
import { makeSession } from '../harness/session.js';
import { liveEnvelopes, mailboxAgent, refsUnder, until } from '../harness/steer.js';

const pendingRef = (slug: string) => `refs/heads/abcd/pending/local/item/${slug}`;

describe('a build queued behind a steered lane', () => {
  afterAll(cleanupTemp);

  it('a build queued with --wait behind the lane exits 0 without its agent once the lane absorbed its note', async () => {
    const remote = await remoteWithItems([{ slug: 'page' }], { lanes: { steer: { poll: '500ms' } } });
    const dir = await tempDir('receipt-wait');
    const lane = await makeSession(remote.url, 'lane', { person: 'lane@example.com', env: { ABCD_GATE_SLOTS: '4' } });
    const run = lane.abcd(['build', 'page', '--json', '--sandbox', 'none', '--agent-timeout', '300s', '--agent', mailboxAgent(dir)], {
      timeoutMs: 150_000,
    });
    await until('the agent to start', () => existsSync(join(dir, 'starts')));
    // The CI job queued behind the lane (its concurrency group): it leaves its request and waits.
    const queued = await makeSession(remote.url, 'queued', { person: 'lane@example.com', env: { ABCD_GATE_SLOTS: '4' } });
    const marker = join(dir, 'queued-agent-ran');
    const waiter = queued.abcd(
      [
        'build',
        'page',
        '--json',
        '--wait',
        '120s',
        '--note',
        'the event that queued me',
        '--sandbox',
        'none',
        '--agent',
        `touch ${marker}`,
      ],
      { timeoutMs: 150_000 },
    );
    await until('the note in flight', async () => (await liveEnvelopes(dir)).some((e) => e.includes('| the event that queued me\n')));
    await writeFile(join(dir, 'go'), '');
    expect((await run).code).toBe(0);
    const w = await waiter;
    expect(w.code, w.stdout + w.stderr).toBe(0);
    expect(w.json).toMatchObject({ outcome: 'idle', record: { cycles: [] } });
    expect(existsSync(marker)).toBe(false);
    expect(await refsUnder(remote, pendingRef('page'))).toEqual([]);
  }, 150_000);
});
