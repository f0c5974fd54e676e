// Receipts: a build request that fills the pending slot while a lane holds the item
// is delivered in flight; the landing records a receipt naming it; the pending run for it then
// exits 0 without starting the agent. The check fails open: with the receipt removed or
// corrupted, the pending run does the work.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { laneRun, remoteWithItems } from '../harness/lanes.js';
import { writeRawRecord } from '../harness/remote.js';
import { makeSession, type Json } from '../harness/session.js';
import { liveEnvelopes, mailboxAgent, refsUnder, remoteRecord, until } from '../harness/steer.js';

const ITEMS = ['kept', 'removed', 'corrupted'] as const;
const receiptRef = (slug: string) => `refs/heads/abcd/receipts/local/item/${slug}`;
const pendingRef = (slug: string) => `refs/heads/abcd/pending/local/item/${slug}`;

describe('receipts', () => {
  afterAll(cleanupTemp);

  it('the pending run for an absorbed request skips; without a receipt it can use, it does the work', async () => {
    const remote = await remoteWithItems(
      ITEMS.map((slug) => ({ slug })),
      { lanes: { steer: { poll: '500ms' } } },
    );
    const dir = await tempDir('receipt');
    // A lane per item, each in its own clone (a fetch in a clone fails while another process
    // there adds a worktree). poll: after its cycle each looks again, and would run a follow-up.
    const lanes = await Promise.all(
      ITEMS.map((slug) => makeSession(remote.url, `lane-${slug}`, { person: 'lane@example.com', env: { ABCD_GATE_SLOTS: '4' } })),
    );
    const building = Promise.all(
      ITEMS.map((slug, i) =>
        lanes[i]!.abcd(
          [
            'build',
            slug,
            '--json',
            '--lifecycle',
            'poll',
            '--idle',
            '3s',
            '--sandbox',
            'none',
            '--agent-timeout',
            '300s',
            '--agent',
            mailboxAgent(dir, { perItem: true }),
          ],
          { timeoutMs: 150_000 },
        ),
      ),
    );
    await until('every agent to start', () => ITEMS.every((i) => existsSync(join(dir, `local-item-${i}`, 'starts'))));
    // Another session of the person asks for a follow-up of each: the lane holds them, so each fills the pending slot.
    const asker = await makeSession(remote.url, 'asker', { person: 'lane@example.com' });
    const tips = new Map<string, string>();
    const asked = await Promise.all(ITEMS.map((slug) => asker.abcd(['build', slug, '--json', '--note', `follow up ${slug}`])));
    asked.forEach((r, i) => {
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.json).toMatchObject({ outcome: 'pending' });
      tips.set(ITEMS[i]!, r.json.pending.tip);
    });
    for (const slug of ITEMS) {
      await until(`the note for ${slug} in flight`, async () =>
        (await liveEnvelopes(join(dir, `local-item-${slug}`))).some((e) => e.includes(`| follow up ${slug}\n`)),
      );
    }
    await writeFile(join(dir, 'go'), '');
    const built = await building;
    for (const [i, slug] of ITEMS.entries()) {
      const b = built[i]!;
      expect(b.code, b.stdout + b.stderr).toBe(0);
      // One cycle: the lane's own next look found the slot covered by its receipt and removed it.
      expect(laneRun(b).record.cycles.map((c: { outcome: string }) => c.outcome)).toEqual(['landed']);
      const receipt = await remoteRecord(remote, receiptRef(slug));
      expect(receipt).toMatchObject({
        item: `local:item:${slug}`,
        runId: laneRun(b).runId,
        consumed: [{ kind: 'pending', id: tips.get(slug) }],
      });
      expect(await refsUnder(remote, pendingRef(slug))).toEqual([]);
      // What proves it is main: the landed commit the receipt names carries the run and the request.
      const landed = (await execa('git', ['-C', remote.dir, 'log', '-1', '--format=%B', receipt.head])).stdout;
      expect(landed).toContain(`Abcd-Run: ${laneRun(b).runId}\nAbcd-Consumed: pending ${tips.get(slug)}`);
      expect((await execa('git', ['-C', remote.dir, 'rev-list', '--first-parent', 'main'])).stdout.split('\n')).toContain(receipt.head);
      // Put the answered request back, as a lane stopped right after its landing leaves it.
      await execa('git', ['-C', remote.dir, 'update-ref', pendingRef(slug), tips.get(slug)!]);
    }

    // Take the receipt away, or corrupt it (the other ways to fail open: test/steer-receipt-read.test.ts).
    await execa('git', ['-C', remote.dir, 'update-ref', '-d', receiptRef('removed')]);
    await writeRawRecord(remote.dir, receiptRef('corrupted'), '{"abcd": "receipt", "v": 1, "consumed": [');

    // The pending runs: a marker per agent start tells whether the agent ran.
    // The person's CI, say: the same person, so the request is one it answers; a clone per
    // item (a fetch in a clone fails while another process there adds a worktree).
    const runners = await Promise.all(
      ITEMS.map((slug) => makeSession(remote.url, `runner-${slug}`, { person: 'lane@example.com', env: { ABCD_GATE_SLOTS: '4' } })),
    );
    const marked = join(dir, 'pending-runs');
    const agent = `echo "$ABCD_ITEM" >> ${marked}; cp "$ABCD_MAILBOX" "followup-$(printf %s "$ABCD_ITEM" | tr : -).txt"; git add -A && git commit -qm followup`;
    const results = new Map<string, Json>();
    const runs = await Promise.all(
      ITEMS.map((slug, i) => runners[i]!.abcd(['build', slug, '--json', '--sandbox', 'none', '--agent', agent], { timeoutMs: 120_000 })),
    );
    runs.forEach((r, i) => {
      expect(r.code, `${ITEMS[i]}: ${r.stdout}${r.stderr}`).toBe(0);
      results.set(ITEMS[i]!, r.json);
    });
    const ran = existsSync(marked) ? (await execa('cat', [marked])).stdout.split('\n').filter(Boolean) : [];
    expect(ran.sort()).toEqual(['local:item:corrupted', 'local:item:removed']);
    // The covered one: no agent, no cycle, and its slot is gone (answered by the run in flight).
    expect(results.get('kept')).toMatchObject({ outcome: 'idle' });
    expect(results.get('kept').record.cycles).toEqual([]);
    expect(await refsUnder(remote, pendingRef('kept'))).toEqual([]);
    for (const slug of ['removed', 'corrupted']) {
      expect(results.get(slug)).toMatchObject({ outcome: 'landed' });
      const mailbox = (await execa('git', ['-C', remote.dir, 'show', `main:followup-local-item-${slug}.txt`])).stdout;
      expect(mailbox).toContain(`follow up ${slug}`);
    }
  }, 150_000);
});
