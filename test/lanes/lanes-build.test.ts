// abcd build: a cycle that does not land says why, releases the claim and leaves nothing
// running; an explicit timed lifecycle without room for one cycle refuses before anything.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { ABCD_BIN } from '../harness/session.js';
import { assertAnswerContract } from '../harness/answer-contract.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { laneRun, agentProcesses, COMMITTING_AGENT, itemStatus, laneSession, processesWith, remoteWithItems } from '../harness/lanes.js';

describe('build', () => {
  afterAll(cleanupTemp);

  it('one cycle lands the item and marks it done', async () => {
    const remote = await remoteWithItems([{ slug: 'one' }]);
    const s = await laneSession(remote, 'builder');
    const r = await s.abcd(['build', 'one', '--json', '--agent', COMMITTING_AGENT]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ outcome: 'landed', sandbox: 'bwrap', record: { state: 'finished', end: 'ok' } });
    expect(r.json.login).toMatch(/does not apply/);
    expect(await itemStatus(remote, 'one')).toBe('done');
  });

  it.each([
    ['fails', 'echo oops; exit 5', 3, 'failed', /exited 5/],
    ['makes no change', 'true', 3, 'no-change', /changed nothing/],
    ['hangs past its timeout', 'sleep 600 & sleep 600', 4, 'timeout', /timeout/],
  ] as const)(
    'an agent that %s: not done, claim released, the result says why, no process left',
    async (_what, agent, exit, outcome, why) => {
      const remote = await remoteWithItems([{ slug: 'task' }]);
      const s = await laneSession(remote, 'builder');
      const marker = `build-marker-${process.pid}-${Date.now()}`;
      const r = await s.abcd(['build', 'task', '--json', '--agent-timeout', '3s', '--agent', `${agent} # ${marker}`]);
      expect(r.code, r.stdout + r.stderr).toBe(exit);
      const cycle = laneRun(r).record.cycles[0];
      expect(cycle).toMatchObject({ item: 'task', outcome });
      expect(cycle.reason).toMatch(why);
      expect(await itemStatus(remote, 'task')).toBe('ready');
      const status = await s.abcd(['status', '--json']);
      expect(status.json.claims.filter((c: { state: string }) => c.state === 'held')).toEqual([]);
      expect(await processesWith(marker)).toEqual([]);
      expect([...(await remote.refs()).keys()].filter((x) => x.startsWith('refs/heads/lane/'))).toEqual([]);
    },
  );

  it('timed with a deadline shorter than one first cycle exits 4 and creates no record', async () => {
    const remote = await remoteWithItems([{ slug: 'late' }]);
    const s = await laneSession(remote, 'builder');
    const before = [...(await remote.refs()).keys()];
    const r = await s.abcd([
      'build',
      'late',
      '--json',
      '--lifecycle',
      'timed',
      '--deadline',
      '90s',
      '--agent-timeout',
      '5m',
      '--agent',
      COMMITTING_AGENT,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.json.refusal).toMatchObject({ code: 'deadline' });
    expect(r.json.refusal.data.neededMs).toBeGreaterThan(r.json.refusal.data.remainingMs);
    expect([...(await remote.refs()).keys()]).toEqual(before);
    const missing = await s.abcd(['build', 'nosuch', '--json', '--agent', COMMITTING_AGENT]);
    expect(missing.code).toBe(2);
    expect(missing.json.refusal.message).toMatch(/no item nosuch on main/);
    const d = await s.abcd(['drain', '--json', '--lifecycle', 'timed', '--agent', COMMITTING_AGENT], {
      env: { ABCD_JOB_DEADLINE: new Date(Date.now() + 30_000).toISOString() },
    });
    expect(d.code, d.stdout + d.stderr).toBe(4);
    expect([...(await remote.refs()).keys()]).toEqual(before);
  });

  it('SIGTERM stops the agent, releases the claim, publishes the result and exits 130', async () => {
    const remote = await remoteWithItems([{ slug: 'stop' }, { slug: 'later' }]);
    const s = await laneSession(remote, 'builder');
    const marker = `term-marker-${process.pid}-${Date.now()}`;
    const p = execa(process.execPath, [ABCD_BIN, 'drain', '--json', '--agent', `sleep 600 # ${marker}`], {
      cwd: s.dir,
      env: s.env,
      extendEnv: false,
      reject: false,
    });
    const end = Date.now() + 60_000;
    while ((await agentProcesses(marker)).length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    p.kill('SIGTERM');
    const r = await p;
    expect(r.exitCode, String(r.stdout) + String(r.stderr)).toBe(130);
    const json = JSON.parse(String(r.stdout).trim().split('\n').at(-1)!);
    assertAnswerContract(['drain', '--json'], r.exitCode ?? -1, json);
    expect(json.refusal.code).toBe('interrupted');
    expect(json.refusal.data.result.record).toMatchObject({ state: 'finished', end: 'interrupted', cycles: [{ outcome: 'cancelled' }] });
    expect(await processesWith(marker)).toEqual([]);
    const status = await s.abcd(['status', '--json']);
    expect(status.json.claims.filter((c: { state: string }) => c.state === 'held')).toEqual([]);
    expect(status.json.lanes).toMatchObject([{ state: 'finished', end: 'interrupted' }]);
  });

  it('without a working bubblewrap, auto refuses an unattended lane with exit 7 naming the fix; attended runs unsandboxed', async () => {
    const remote = await remoteWithItems([{ slug: 'nobwrap' }]);
    const s = await laneSession(remote, 'builder');
    // A PATH with git and a shell but no bwrap.
    const bin = await tempDir('no-bwrap-bin');
    const { symlink } = await import('node:fs/promises');
    for (const tool of ['git', 'sh']) await symlink((await execa('sh', ['-c', `command -v ${tool}`])).stdout.trim(), `${bin}/${tool}`);
    const env = { PATH: bin };
    const r = await s.abcd(['drain', '--json', '--agent', COMMITTING_AGENT], { env });
    expect(r.code, r.stdout + r.stderr).toBe(7);
    expect(r.json.refusal.message).toMatch(/bubblewrap.*--sandbox none/s);
    expect([...(await remote.refs()).keys()].filter((x) => x.startsWith('refs/heads/abcd/'))).toEqual([]);
    const attended = await s.abcd(['build', 'nobwrap', '--json', '--attended', '--agent', 'echo hi > hi.txt'], { env });
    expect(attended.code, attended.stdout + attended.stderr).toBe(0);
    expect(attended.json).toMatchObject({ sandbox: 'none', outcome: 'landed', warning: expect.stringMatching(/not installed/) });
  });
});
