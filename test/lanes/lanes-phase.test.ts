// A running lane's record says what each of its items is doing: the agent, the land's checks or
// the rest of landing, since when, and what the agent used so far; abcd status shows it. The
// record is rewritten once per phase change, not more.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { COMMITTING_AGENT, laneSession, remoteWithItems } from '../harness/lanes.js';
import { ABCD_BIN, type Json } from '../harness/session.js';

afterAll(cleanupTemp);

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('a running lane says its phase', () => {
  it('status shows the agent phase while the agent sleeps, then checks with the usage the agent reported', async () => {
    const remote = await remoteWithItems([{ slug: 'sleepy' }], { land: { checks: 'sleep 6' } });
    const s = await laneSession(remote, 'phases');
    const agent = `echo '{"tokens":1234}' >> "$ABCD_USAGE"; sleep 6; ${COMMITTING_AGENT}`;
    const build = execa(process.execPath, [ABCD_BIN, 'build', 'sleepy', '--json', '--agent', agent], {
      cwd: s.dir,
      env: s.env,
      extendEnv: false,
      reject: false,
    });
    const phaseIs = (phase: string) => async () => {
      const st = await s.abcd(['status', '--json']);
      const cur = (st.json?.lanes ?? []).flatMap((l: Json) => (l.state === 'running' ? l.current : []));
      return cur.find((c: Json) => c.phase === phase) as Json;
    };
    const inAgent = await until('the agent phase', phaseIs('agent'));
    expect(inAgent).toMatchObject({ item: 'sleepy', phase: 'agent' });
    expect(inAgent.phaseForMs).toBeLessThanOrEqual(inAgent.forMs);
    const inChecks = await until('the checks phase', phaseIs('checks'));
    expect(inChecks).toMatchObject({ item: 'sleepy', phase: 'checks', usage: 1234 });
    const text = await s.abcd(['status']);
    expect(text.stdout).toMatch(/sleepy +checks +\S+ \(\S+ in phase\) +1234 tokens/);
    const b = await build;
    expect(b.exitCode, String(b.stdout) + String(b.stderr)).toBe(0);
    // The record's history: its first write, one per phase change (landing, checks, landing), the cycle, the end.
    const ref = JSON.parse(String(b.stdout)).ref as string;
    const log = await execa('git', ['-C', remote.dir, 'log', '--format=%s', ref]);
    const writes = String(log.stdout).split('\n');
    // Without phases: the start, the cycle, the end. With them at most one more per change (status
    // above read the agent and checks phases from the record; writes close together coalesce).
    expect(writes.length).toBeGreaterThanOrEqual(3);
    expect(writes.length).toBeLessThanOrEqual(3 + 3);
  }, 150_000);
});
