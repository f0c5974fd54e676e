// A lane killed with -9 runs none of its cleanup. What it left (its cycle folder in the temp
// directory, the land worktree under the clone's git dir, its work branch and held-claim
// memory) is named after its process, so the next lane in the clone removes it; and status on
// this computer says the run is lost as soon as its process is gone, not when its ttl runs out.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { laneRun, COMMITTING_AGENT, laneSession, processesWith, remoteWithItems, killProcessesWith } from '../harness/lanes.js';
import { ABCD_BIN } from '../harness/session.js';
import { until } from '../harness/steer.js';
import { runStanding } from '../../src/status/lane-views.js';
import type { LaneResultRecord } from '../../src/records/lane-result.js';

afterAll(cleanupTemp);

async function laneFolders(tmp: string): Promise<string[]> {
  return (await readdir(tmp)).filter((n) => n.startsWith('abcd-lane-'));
}

describe('a lane killed with -9', () => {
  it('the next lane in the clone removes its cycle folder, land worktree and branch; status says lost at once', async () => {
    const marker = `leftover-check-${process.pid}-${Date.now()}`;
    // The check never ends on its own: the drain is killed while it lands, the moment it has
    // both its cycle folder and a land worktree.
    const remote = await remoteWithItems([{ slug: 'crash' }], { land: { checks: `sleep 600 # ${marker}` } });
    const tmp = await tempDir('leftover-tmp');
    const a = await laneSession(remote, 'doomed', { TMPDIR: tmp });
    const doomed = execa(process.execPath, [ABCD_BIN, 'drain', '--agent', COMMITTING_AGENT], {
      cwd: a.dir,
      env: a.env,
      extendEnv: false,
      reject: false,
    });
    const worktrees = async () => (await a.git(['worktree', 'list', '--porcelain'])).split('\n').filter((l) => l.startsWith('worktree '));
    await until(
      'the check to run in a land worktree',
      async () => (await processesWith(marker)).length > 0 && (await worktrees()).length === 2,
    );
    // The run has written its record (it claimed the item) before it got this far.
    const before = await a.abcd(['status', '--json']);
    expect(before.json.lanes).toMatchObject([{ verb: 'drain', state: 'running' }]);
    doomed.kill('SIGKILL');
    await doomed;
    await killProcessesWith(marker);
    // Its cycle folder, and the private folders made beside it (the sandbox network's sockets).
    expect((await laneFolders(tmp)).filter((n) => !/-(net|gw|host|rebase)-/.test(n))).toHaveLength(1);
    expect(await a.git(['for-each-ref', '--format=%(refname)', 'refs/heads/lane/'])).toMatch(/^refs\/heads\/lane\/local-item-crash\//);

    // Well within the record's ttl (3 minutes): the pid is what tells.
    const st = await a.abcd(['status', '--json']);
    expect(st.code).toBe(0);
    const run = st.json.lanes.find((l: { runId: string }) => l.runId === before.json.lanes[0].runId);
    expect.soft(run).toMatchObject({ state: 'lost', lost: { why: 'process-gone', lastSeenAt: run.at }, current: [] });
    const text = await a.abcd(['status']);
    expect.soft(text.stdout).toMatch(/lost: drain \S+ by .*: its process on this computer is gone, last seen \S+ ago/);

    // Any lane: this one finds the item still claimed by the dead run and nothing else to do.
    const next = await a.abcd(['drain', '--json', '--agent', COMMITTING_AGENT], { timeoutMs: 90_000 });
    expect(next.code, next.stdout + next.stderr).toBe(0);
    expect.soft(await laneFolders(tmp)).toEqual([]);
    expect.soft(await worktrees()).toHaveLength(1);
    expect.soft(await a.git(['for-each-ref', 'refs/heads/lane/'])).toBe('');
    const gitDir = await a.git(['rev-parse', '--absolute-git-dir']);
    expect(await readdir(join(gitDir, 'abcd', 'land')).catch(() => [])).toEqual([]);
    expect(await readdir(join(gitDir, 'abcd', 'runs'))).toEqual([]);
    expect((await readdir(join(gitDir, 'abcd', 'held')).catch(() => [])).filter((x) => x.endsWith(run.runId))).toEqual([]);
  }, 180_000);

  it("a lane and a land remove a dead process's cycle folder and leave a live one's alone", async () => {
    const remote = await remoteWithItems([{ slug: 'one' }]);
    const tmp = await tempDir('leftover-live');
    const s = await laneSession(remote, 'sweeper', { TMPDIR: tmp });
    const { readStartTime } = await import('../../src/machine/gate/process.js');
    const { mkdir } = await import('node:fs/promises');
    // Named after this test's own process, which runs; and one named after a pid that is gone.
    const live = `abcd-lane-${process.pid}-${readStartTime(process.pid)}-AbC123`;
    const dead = `abcd-lane-${process.pid}-1-AbC123`;
    await mkdir(join(tmp, live, 'wt'), { recursive: true });
    await mkdir(join(tmp, dead, 'wt'), { recursive: true });
    // A run in a clone shared with another container: its pid means nothing here, so its mark
    // and branch stay, however dead the pid looks from this side.
    const gitDir = await s.git(['rev-parse', '--absolute-git-dir']);
    const elsewhere = `${process.pid}-1-20261201T000000Z-aaaaaa`;
    await mkdir(join(gitDir, 'abcd', 'runs'), { recursive: true });
    await writeFile(join(gitDir, 'abcd', 'runs', elsewhere), '00000000-0000-0000-0000-000000000000/pid:[1]');
    await s.git(['update-ref', 'refs/heads/lane/local-item-x/20261201T000000Z-aaaaaa-1', 'HEAD']);
    const r = await s.abcd(['drain', '--json', '--agent', COMMITTING_AGENT]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(laneRun(r).record.cycles).toMatchObject([{ item: 'one', outcome: 'landed' }]);
    expect(await laneFolders(tmp)).toEqual([live]);
    expect(await readdir(join(gitDir, 'abcd', 'runs'))).toEqual([elsewhere]);
    expect(await s.git(['for-each-ref', '--format=%(refname)', 'refs/heads/lane/'])).toBe(
      'refs/heads/lane/local-item-x/20261201T000000Z-aaaaaa-1',
    );
    // The run that ended leaves no memory of its claims either (its folder emptied as it landed).
    expect((await readdir(join(gitDir, 'abcd', 'held'))).filter((x) => x.endsWith(laneRun(r).runId))).toEqual([]);
    // A land sweeps them as well.
    await mkdir(join(tmp, dead, 'wt'), { recursive: true });
    expect((await s.abcd(['reserve', 'tidy'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'tidy']);
    await s.commit('tidy.txt', 'tidy\n');
    const landed = await s.abcd(['land', 'tidy', '--json']);
    expect(landed.code, landed.stdout + landed.stderr).toBe(0);
    expect(await laneFolders(tmp)).toEqual([live]);
  }, 90_000);
});

describe("a run's mark in the clone", () => {
  it('a mark the disk refuses costs the sweep of a killed run, never the run', async () => {
    const remote = await remoteWithItems([{ slug: 'unmarked' }]);
    const s = await laneSession(remote, 'unmarked');
    const gitDir = await s.git(['rev-parse', '--absolute-git-dir']);
    // A file where the marks' folder goes: making the folder and writing the mark both fail.
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(gitDir, 'abcd'), { recursive: true });
    await writeFile(join(gitDir, 'abcd', 'runs'), 'not a folder\n');
    const r = await s.abcd(['build', 'unmarked', '--json', '--agent', COMMITTING_AGENT]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(laneRun(r).outcome).toBe('landed');
  }, 90_000);
});

describe('how a reader judges a running record', () => {
  const record = (over: Partial<LaneResultRecord> = {}): LaneResultRecord => ({
    abcd: 'lane',
    v: 1,
    runId: '20261201T000000Z-abcdef',
    verb: 'drain',
    holder: { person: 'p@example.com', host: 'h', session: 's' },
    lifecycle: 'once',
    lanes: 1,
    state: 'running',
    startedAt: 1_000,
    at: 10_000,
    ttl: 180_000,
    current: [],
    cycles: [],
    deferred: [],
    usage: 0,
    process: { space: 'boot/pid:[1]', pid: 42, start: '7' },
    ...over,
  });
  const cannotTell = () => undefined;

  it('in the writer pid space: lost as soon as the process is gone, running while it runs', () => {
    expect(runStanding(record(), 20_000, () => true)).toEqual({ state: 'lost', lost: { why: 'process-gone', lastSeenAt: 10_000 } });
    expect(runStanding(record(), 20_000, () => false)).toEqual({ state: 'running' });
  });

  it('from another computer (or an older writer, who names no process): only the ttl tells', () => {
    expect(runStanding(record(), 20_000, cannotTell)).toEqual({ state: 'running' });
    expect(runStanding(record(), 190_001, cannotTell)).toEqual({ state: 'lost', lost: { why: 'not-renewed', lastSeenAt: 10_000 } });
    const { process: _, ...old } = record();
    expect(runStanding(old, 20_000, () => true)).toEqual({ state: 'running' });
  });

  it('a finished record is finished, whatever its process', () => {
    expect(runStanding(record({ state: 'finished' }), 999_999, () => true)).toEqual({ state: 'finished' });
  });
});
