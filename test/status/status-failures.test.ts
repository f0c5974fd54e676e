// Failures first: a drain whose agent exits 127 on one item and whose land check fails on
// another leaves both in status's attention section, each with its item, what failed (the
// exit code and the agent's last line; the check's name, exit and last line), the branch that
// keeps the work and the commands to run next; --json carries the same, and an item built
// again shows its latest failure only.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { COMMITTING_AGENT, laneSession, remoteWithItems } from '../harness/lanes.js';
import type { Json } from '../harness/session.js';
import { ANSWERS } from '../../src/cli/answers.js';

afterAll(cleanupTemp);

const AGENT = `case "$ABCD_ITEM" in *broken) echo "looking for the tool"; no-such-tool-xyz --fix ;; *) ${COMMITTING_AGENT} ;; esac`;
const CHECK = 'echo "assertion failed: 2 + 2 is not 5"; exit 3';

describe('status lists failed cycles first', () => {
  it('shows an agent that exited 127 and a failing check with item, reason, kept branch and next command', async () => {
    const remote = await remoteWithItems([{ slug: 'broken' }, { slug: 'redcheck' }], {
      land: { checks: CHECK },
      lanes: { fixChecks: 0 },
    });
    const s = await laneSession(remote, 'watcher');
    const d = await s.abcd(['drain', '--json', '--agent', AGENT], { timeoutMs: 120_000 });
    const runId = d.json.refusal.data.runId as string;
    expect(runId, d.stdout + d.stderr).toBeTruthy();

    const st = await s.abcd(['status', '--json']);
    expect(st.code, st.stderr).toBe(0);
    expect(ANSWERS.status!.safeParse(st.json).success).toBe(true);
    const byItem = new Map((st.json.failures as Json[]).map((f) => [f.item, f]));
    expect(byItem.get('broken')).toMatchObject({
      kind: 'agent-exit',
      runId,
      exitCode: 127,
      what: expect.stringMatching(/^the agent exited 127: .*no-such-tool-xyz.*not found/),
      next: [`abcd logs ${runId} --item broken`, 'abcd build broken'],
    });
    expect(byItem.get('redcheck')).toMatchObject({
      kind: 'check',
      check: { name: CHECK, exitCode: 3 },
      lastLine: 'assertion failed: 2 + 2 is not 5',
      branch: expect.stringContaining('redcheck'),
      next: [`abcd logs ${runId} --item redcheck`, 'abcd build redcheck'],
    });
    // The kept branch is on the remote.
    const branch = byItem.get('redcheck')!.branch as string;
    expect((await remote.refs()).has(`refs/heads/${branch}`)).toBe(true);

    const text = await s.abcd(['status']);
    const lines = text.stdout.split('\n');
    const title = lines.findIndex((l) => l.startsWith('Failed or stuck in the last day (2)'));
    expect(title, text.stdout).toBeGreaterThanOrEqual(0);
    // Before the claims: the first thing after the header a person reads.
    expect(title).toBeLessThan(lines.findIndex((l) => l.startsWith('Claims')));
    expect(text.stdout).toMatch(/ {2}broken: the agent exited 127: .*not found \(\S+ ago\)/);
    expect(text.stdout).toContain(`next: abcd logs ${runId} --item broken or abcd build broken`);
    expect(text.stdout).toMatch(/ {2}redcheck: the check ".*" exited 3: assertion failed: 2 \+ 2 is not 5/);
    expect(text.stdout).toContain(`work kept on ${branch}; next: abcd logs ${runId} --item redcheck`);

    // Built again, an item shows its latest failure only: now the check's.
    const again1 = await s.abcd(['build', 'broken', '--json', '--agent', COMMITTING_AGENT], { timeoutMs: 120_000 });
    expect(again1.code, again1.stdout + again1.stderr).not.toBe(0);
    const again = await s.abcd(['status', '--json']);
    const kinds = Object.fromEntries((again.json.failures as Json[]).map((f) => [f.item, f.kind]));
    expect(kinds).toEqual({ broken: 'check', redcheck: 'check' });
  }, 180_000);
});
