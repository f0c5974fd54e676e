// Receipts are proven by main (ADR 0068): a receipt record alone is a hint. A stranger who
// pushes abcd/receipts/<item> listing the person's pending slot neither stops the follow-up
// run nor gets the slot deleted; only a landing commit on main's first-parent history whose
// trailers name the run and the request lets a run skip (test/steer-receipt.test.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeReceipt } from '../../src/records/receipt.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { laneRun, remoteWithItems } from '../harness/lanes.js';
import { writeRawRecord } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';

const SLOT = 'refs/heads/abcd/pending/local/item/page';
const RECEIPT = 'refs/heads/abcd/receipts/local/item/page';

describe('a forged receipt', () => {
  afterAll(cleanupTemp);

  it("neither skips the person's follow-up nor deletes its slot", async () => {
    const remote = await remoteWithItems([{ slug: 'page', status: 'done' }, { slug: 'other' }]);
    const dir = await tempDir('forged-receipt');
    const marker = join(dir, 'ran');
    const agent = `echo "$ABCD_ITEM" >> ${marker}; cp "$ABCD_MAILBOX" "mailbox-$(printf %s "$ABCD_ITEM" | tr : -).txt"; git add -A && git commit -qm work`;
    const env = { ABCD_GATE_SLOTS: '4' };
    const person = await makeSession(remote.url, 'person', { person: 'me@example.com', env });
    const holder = await makeSession(remote.url, 'holder', { person: 'me@example.com', env });
    // The person asks for a follow-up of the done item while another of their sessions holds it.
    expect((await holder.abcd(['reserve', 'page', '--reopen', '--json'])).json).toMatchObject({ ok: true });
    const asked = await person.abcd(['build', 'page', '--note', 'add a footer', '--json']);
    expect(asked.json, asked.stdout + asked.stderr).toMatchObject({ ok: true, outcome: 'pending' });
    const tip: string = asked.json.pending.tip;
    expect((await holder.abcd(['release', 'page', '--json'])).json).toMatchObject({ ok: true });

    // A stranger writes a receipt saying some run absorbed that very request.
    const mainTip = (await remote.refs()).get('refs/heads/main')!;
    await writeRawRecord(
      remote.dir,
      RECEIPT,
      encodeReceipt({
        abcd: 'receipt',
        v: 1,
        item: 'local:item:page',
        runId: '20261201T000000Z-forged',
        holder: { person: 'me@example.com', host: 'elsewhere', session: 'stranger' },
        gen: 1,
        at: Date.now(),
        head: mainTip,
        consumed: [{ kind: 'pending', id: tip }],
      }),
    );

    // Any lane's look at the follow-ups leaves the slot alone.
    const other = await person.abcd(['build', 'other', '--json', '--sandbox', 'none', '--agent', agent], { timeoutMs: 90_000 });
    expect(other.json, other.stdout + other.stderr).toMatchObject({ ok: true, outcome: 'landed' });
    expect((await remote.refs()).get(SLOT)).toBe(tip);

    // The follow-up itself runs the agent, with the person's note in its mailbox (the item is done
    // again since the release, so the person reopens it: a done item stays done otherwise).
    const run = await person.abcd(['build', 'page', '--reopen', '--json', '--sandbox', 'none', '--agent', agent], { timeoutMs: 90_000 });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.json).toMatchObject({ outcome: 'landed' });
    expect(laneRun(run).record.cycles).toMatchObject([{ item: 'page', outcome: 'landed', followUp: true }]);
    expect(existsSync(marker) ? (await execa('cat', [marker])).stdout.split('\n').sort() : []).toEqual([
      'local:item:other',
      'local:item:page',
    ]);
    expect((await execa('git', ['-C', remote.dir, 'show', 'main:mailbox-local-item-page.txt'])).stdout).toContain('add a footer');
  }, 150_000);

  it("written as trailers into someone's own commit, landed by rebase, leaves the person's pending request in place", async () => {
    const remote = await remoteWithItems([{ slug: 'page', status: 'done' }, { slug: 'other' }]);
    const env = { ABCD_GATE_SLOTS: '4' };
    const person = await makeSession(remote.url, 'person', { person: 'me@example.com', env });
    const lander = await makeSession(remote.url, 'lander', { person: 'me@example.com', env });
    // A session that may land (another of the person's, a colleague's commit in hand) holds the item while the person asks for a follow-up of it.
    expect((await lander.abcd(['reserve', 'page', '--reopen', '--json'])).json).toMatchObject({ ok: true });
    const asked = await person.abcd(['build', 'page', '--note', 'add a footer', '--json']);
    expect(asked.json, asked.stdout + asked.stderr).toMatchObject({ ok: true, outcome: 'pending' });
    const tip: string = asked.json.pending.tip;

    // Their own commit carries the trailers abcd writes when a run absorbed that request, and
    // the rebase strategy lands its message as written, as main's tip.
    const runId = '20261201T000000Z-forged';
    await lander.git(['checkout', '-q', '-b', 'work/page', 'origin/main']);
    await lander.commit('footer.txt', 'footer\n', `a footer\n\nAbcd-Run: ${runId}\nAbcd-Consumed: pending ${tip}`);
    const landed = await lander.abcd(['land', 'page', '--strategy', 'rebase', '--json']);
    expect(landed.code, landed.stdout + landed.stderr).toBe(0);
    const mainTip = (await remote.refs()).get('refs/heads/main')!;
    expect((await execa('git', ['-C', remote.dir, 'log', '-1', '--format=%B', mainTip])).stdout).toContain(`Abcd-Consumed: pending ${tip}`);
    // And a receipt record that names that landed commit.
    await writeRawRecord(
      remote.dir,
      RECEIPT,
      encodeReceipt({
        abcd: 'receipt',
        v: 1,
        item: 'local:item:page',
        runId,
        holder: { person: 'me@example.com', host: 'elsewhere', session: 'lander' },
        gen: 1,
        at: Date.now(),
        head: mainTip,
        consumed: [{ kind: 'pending', id: tip }],
      }),
    );

    // A lane's look at the follow-ups finds the request still to be answered.
    const agent = 'echo x > x.txt; git add -A && git commit -qm work';
    const other = await person.abcd(['build', 'other', '--json', '--sandbox', 'none', '--agent', agent], { timeoutMs: 90_000 });
    expect(other.json, other.stdout + other.stderr).toMatchObject({ ok: true, outcome: 'landed' });
    expect((await remote.refs()).get(SLOT)).toBe(tip);
  }, 150_000);
});
