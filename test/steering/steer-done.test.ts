// A done item stays done: a steer left on a landed item is not a reason for the next drain to
// build and land it again; it waits until someone reopens the item, and `build --reopen` delivers it.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { laneRun, itemStatus, laneSession, mainWorkSubjects, remoteWithItems } from '../harness/lanes.js';
import { makeSession } from '../harness/session.js';
import { landedMailboxes, refsUnder } from '../harness/steer.js';

const AGENT = 'cp "$ABCD_MAILBOX" "mailbox-$(date +%s%N).txt"; git add -A && git commit -qm "agent: page"';

describe('a steer on a done item', () => {
  afterAll(cleanupTemp);

  it('waits: drain does not rebuild the item; build --reopen builds it and delivers the steer', async () => {
    const remote = await remoteWithItems([{ slug: 'page' }]);
    const lane = await laneSession(remote, 'lane', { ABCD_SESSION: 'lane' });
    const flags = ['--json', '--sandbox', 'none', '--agent-timeout', '120s', '--agent', AGENT];
    const first = await lane.abcd(['build', 'page', ...flags], { timeoutMs: 120_000 });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(await itemStatus(remote, 'page')).toBe('done');
    const agentCommits = async () => (await mainWorkSubjects(remote)).filter((s) => s === 'agent: page').length;
    expect(await agentCommits()).toBe(1);

    const asker = await makeSession(remote.url, 'asker', { person: 'lane@example.com' });
    const said = await asker.abcd(['steer', 'page', 'rewrite the page']);
    expect(said.code, said.stdout + said.stderr).toBe(0);
    expect(said.stdout).toMatch(
      /page is done: no lane takes it, and the steer waits until someone reopens it \(abcd reserve page --reopen, or abcd build page --reopen\)/,
    );
    const steered = await asker.abcd(['steer', 'page', 'and the footer', '--json']);
    expect(steered.json).toMatchObject({ ok: true, done: true, laneHolds: false, heldBy: null });
    const open = await refsUnder(remote, 'refs/heads/abcd/steer/');
    expect(open).toHaveLength(2);

    // The drain finds no work: the item is not rebuilt and the steers still stand.
    const drain = await lane.abcd(['drain', '--lifecycle', 'once', ...flags], { timeoutMs: 120_000 });
    expect(drain.code, drain.stdout + drain.stderr).toBe(0);
    expect(drain.json).toMatchObject({ outcome: 'idle' });
    expect(await agentCommits()).toBe(1);
    expect(await refsUnder(remote, 'refs/heads/abcd/steer/')).toEqual(open);

    // The person reopens it with build --reopen: it builds, the steers are delivered and removed.
    const again = await lane.abcd(['build', 'page', '--reopen', ...flags], { timeoutMs: 120_000 });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(laneRun(again).record.cycles.map((c: { outcome: string }) => c.outcome)).toEqual(['landed']);
    expect(await agentCommits()).toBe(2);
    const mailboxes = await landedMailboxes(remote);
    expect(mailboxes).toHaveLength(2);
    expect(mailboxes[1]).toContain('| rewrite the page\n');
    expect(mailboxes[1]).toContain('| and the footer\n');
    expect(await refsUnder(remote, 'refs/heads/abcd/steer/')).toEqual([]);
  }, 240_000);

  it('steered while a session that is no lane held it reopened, released after: drain does not rebuild it', async () => {
    const remote = await remoteWithItems([{ slug: 'page' }]);
    const lane = await laneSession(remote, 'lane', { ABCD_SESSION: 'lane' });
    const flags = ['--json', '--sandbox', 'none', '--agent-timeout', '120s', '--agent', AGENT];
    expect((await lane.abcd(['build', 'page', ...flags], { timeoutMs: 120_000 })).code).toBe(0);
    const agentCommits = async () => (await mainWorkSubjects(remote)).filter((s) => s === 'agent: page').length;
    const holder = await makeSession(remote.url, 'holder', { person: 'lane@example.com' });
    expect((await holder.abcd(['reserve', 'page', '--reopen', '--json'])).json).toMatchObject({ ok: true, reopened: true });
    const said = await holder.abcd(['steer', 'page', 'rewrite the page']);
    expect(said.stdout).toMatch(/no lane holds it now \(.*holder.* is no lane\): it will be delivered to the next lane that takes page/);
    const released = await holder.abcd(['release', 'page', '--json']);
    expect(released.json).toMatchObject({ ok: true, state: 'done' });
    const drain = await lane.abcd(['drain', '--lifecycle', 'once', ...flags], { timeoutMs: 120_000 });
    expect(drain.code, drain.stdout + drain.stderr).toBe(0);
    expect(drain.json).toMatchObject({ outcome: 'idle' });
    expect(await agentCommits()).toBe(1);
    expect(await refsUnder(remote, 'refs/heads/abcd/steer/')).toHaveLength(1);
  }, 240_000);
});
