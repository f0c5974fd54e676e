// The result record on the remote keeps a short tail of what the agent printed and of the
// failing check's output: a few printable lines within a byte budget, scrubbed, so a token the
// agent or a check printed never reaches everyone who can fetch.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { COMMITTING_AGENT, laneRun, laneSession, remoteWithItems } from '../harness/lanes.js';

afterAll(cleanupTemp);

const AGENT_SECRET = 'ghp_tailCanary0123456789abcdefABCDEF';
const CHECK_SECRET = 'sk-ant-api03-checkCanary0123456789abcdef';

describe('the result record keeps tails', () => {
  it("of the agent's output and the failing check's, bounded and scrubbed", async () => {
    // The check prints a lot, a token, then a line with terminal codes, and fails.
    const check = `seq 1 3000 | sed 's/^/check line /'; echo "leaked ${CHECK_SECRET}"; printf '\\033[31mred failure\\033[0m\\n'; exit 1`;
    // No fix turn: the cycle fails on the check, and its tail is the check's.
    const remote = await remoteWithItems([{ slug: 'noisy' }], { land: { checks: check }, lanes: { fixChecks: 0 } });
    const s = await laneSession(remote, 'tails');
    const wide = 'x'.repeat(500);
    const agent = `seq 1 3000 | sed 's/^/agent line /'; echo "${wide}"; echo "saw ${AGENT_SECRET} here"; ${COMMITTING_AGENT}`;
    const r = await s.abcd(['build', 'noisy', '--json', '--agent', agent], { timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const raw = (await execa('git', ['-C', remote.dir, 'show', `${laneRun(r).ref}:record.json`])).stdout;
    expect(raw).not.toContain(AGENT_SECRET);
    expect(raw).not.toContain(CHECK_SECRET);
    const cycle = JSON.parse(raw).cycles[0];
    expect(cycle).toMatchObject({ outcome: 'failed', code: 'check-failed' });

    const out: string[] = cycle.outputTail;
    expect(out.at(-1)).toBe('saw ghp_[scrubbed] here');
    expect(out.at(-2)).toBe(`${'x'.repeat(199)}…`);
    expect(out.length).toBeLessThanOrEqual(12);
    expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(1536);
    expect(out.some((l) => l.startsWith('agent line '))).toBe(true);

    const chk: string[] = cycle.checkTail;
    expect(chk.slice(-2)).toEqual(['leaked sk-[scrubbed]', 'red failure']);
    expect(chk.length).toBeLessThanOrEqual(12);
    expect(chk.every((l) => !l.includes('\u001b'))).toBe(true);
  }, 150_000);
});
