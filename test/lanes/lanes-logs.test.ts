// A run's logs: one folder per run under the clone's git dir holding each cycle's whole agent
// and check output, scrubbed; `abcd logs <run>` prints them (a prefix of the id is enough,
// --item picks one item's cycles, --follow tails a running run until it ends); and folders
// older than lanes.logRetention are swept when a run starts.
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { COMMITTING_AGENT, laneSession, remoteWithItems } from '../harness/lanes.js';
import { ABCD_BIN } from '../harness/session.js';
import { ANSWERS } from '../../src/cli/answers.js';

afterAll(cleanupTemp);

const SECRET = 'ghp_logCanary0123456789abcdefABCDEF';
// Says which item it works on, prints a token-shaped word, then commits.
const TALKING_AGENT = `echo "agent working on $ABCD_ITEM"; echo "found ${SECRET} lying about"; ${COMMITTING_AGENT}`;
const CHECK = 'echo "check output for $ABCD_LAND_ITEM"';

async function until(what: string, ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('abcd logs', () => {
  it("prints a drain's agent and check output per cycle, by a prefix of the run id and by --item; scrubbed", async () => {
    const remote = await remoteWithItems([{ slug: 'alpha' }, { slug: 'beta' }], { land: { checks: CHECK } });
    const s = await laneSession(remote, 'logger');
    const r = await s.abcd(['drain', '--json', '--agent', TALKING_AGENT], { timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const runId = r.json.runId as string;

    const all = await s.abcd(['logs', runId.slice(0, 18)]);
    expect(all.code, all.stderr).toBe(0);
    for (const item of ['alpha', 'beta']) {
      expect(all.stdout).toMatch(new RegExp(`==> cycle \\d: ${item} <==`));
      expect(all.stdout).toContain(`agent working on local:item:${item}`);
      expect(all.stdout).toContain(`[abcd] check: ${CHECK}`);
      expect(all.stdout).toContain(`check output for ${item}`);
    }
    expect(all.stdout).toContain('[abcd] check exited 0');
    expect(all.stdout).toContain('found ghp_[scrubbed] lying about');
    expect(all.stdout).not.toContain(SECRET);

    const one = await s.abcd(['logs', runId, '--item', 'beta', '--json']);
    expect(one.code, one.stdout).toBe(0);
    expect(one.json).toMatchObject({ ok: true, runId, state: 'finished', end: 'ok' });
    expect(one.json.cycles.map((c: { item: string }) => c.item)).toEqual(['beta']);
    expect(one.json.cycles[0].text).toContain('check output for beta');
    expect(one.json.cycles[0].text).not.toContain('alpha');
    expect(ANSWERS.logs!.safeParse(one.json).success).toBe(true);

    // The files themselves never held the token: it is scrubbed before it is written.
    const dir = join(s.dir, '.git/abcd/logs', runId);
    const files = await readdir(dir);
    expect(files.sort()).toEqual(expect.arrayContaining(['run.json']));
    const raw = await execa(
      'cat',
      files.map((f) => join(dir, f)),
    );
    expect(raw.stdout).not.toContain(SECRET);
  }, 180_000);

  it('refuses a run id it keeps no logs of, or one that starts several, naming the runs it has', async () => {
    const remote = await remoteWithItems([{ slug: 'unused' }]);
    const s = await laneSession(remote, 'asker');
    const none = await s.abcd(['logs', 'nope', '--json']);
    expect(none.code).toBe(2);
    expect(none.json.refusal).toMatchObject({ code: 'usage', data: { run: 'nope', reason: 'unknown', known: [] } });
    for (const id of ['20261201T100000Z-aaaaaa', '20261201T100500Z-bbbbbb'])
      await mkdir(join(s.dir, '.git/abcd/logs', id), { recursive: true });
    const two = await s.abcd(['logs', '20261201T10', '--json']);
    expect(two.code).toBe(2);
    expect(two.json.refusal.data).toEqual({
      run: '20261201T10',
      reason: 'ambiguous',
      known: ['20261201T100500Z-bbbbbb', '20261201T100000Z-aaaaaa'],
    });
    const unknown = await s.abcd(['logs', 'x']);
    expect(unknown.stderr).toContain('The newest runs it has: 20261201T100500Z-bbbbbb, 20261201T100000Z-aaaaaa');
    const one = await s.abcd(['logs', '20261201T1005', '--json']);
    expect(one.json).toMatchObject({ ok: true, runId: '20261201T100500Z-bbbbbb', state: null, cycles: [] });
  }, 60_000);

  it('--follow prints a running build as it goes and ends when the build finishes', async () => {
    const remote = await remoteWithItems([{ slug: 'slow' }]);
    const s = await laneSession(remote, 'follower');
    const agent = `echo first-line; sleep 3; echo second-line; ${COMMITTING_AGENT}`;
    const build = execa(process.execPath, [ABCD_BIN, 'build', 'slow', '--json', '--agent', agent], {
      cwd: s.dir,
      env: s.env,
      extendEnv: false,
      reject: false,
    });
    const logs = join(s.dir, '.git/abcd/logs');
    let runId = '';
    await until('the run to start its log', async () => {
      runId = (await readdir(logs).catch(() => []))[0] ?? '';
      return runId !== '' && (await readdir(join(logs, runId))).some((f) => f.endsWith('.log'));
    });
    const follow = execa(process.execPath, [ABCD_BIN, 'logs', runId.slice(0, 20), '--follow'], {
      cwd: s.dir,
      env: s.env,
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    });
    let seen = '';
    follow.stdout?.on('data', (d: Buffer) => (seen += d.toString()));
    await until('the first line followed', async () => seen.includes('first-line'));
    // The build is still running: its second line comes only later.
    expect(seen).not.toContain('second-line');
    const [b, f] = await Promise.all([build, follow]);
    expect(b.exitCode, String(b.stdout) + String(b.stderr)).toBe(0);
    expect(f.exitCode, String(f.stderr)).toBe(0);
    expect(String(f.stdout)).toContain('second-line');
    expect(String(f.stderr)).toContain(`run ${runId} finished (ok)`);
  }, 180_000);

  it("a run sweeps a log folder last written longer ago than lanes.logRetention, keeping a fresh one's", async () => {
    const remote = await remoteWithItems([{ slug: 'one' }], { lanes: { logRetention: '2d' } });
    const s = await laneSession(remote, 'sweeper');
    const logs = join(s.dir, '.git/abcd/logs');
    const old = join(logs, '20261101T000000Z-0a0a0a');
    const fresh = join(logs, '20261130T000000Z-0b0b0b');
    for (const d of [old, fresh]) {
      await mkdir(d, { recursive: true });
      await writeFile(join(d, '1-one.log'), 'kept?\n');
      await writeFile(join(d, 'run.json'), JSON.stringify({ runId: d, verb: 'drain', startedAt: 0, state: 'finished' }));
    }
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000);
    const oneDayAgo = new Date(Date.now() - 86_400_000);
    for (const f of ['1-one.log', 'run.json', '']) {
      await utimes(join(old, f), threeDaysAgo, threeDaysAgo);
      await utimes(join(fresh, f), oneDayAgo, oneDayAgo);
    }
    const r = await s.abcd(['drain', '--json', '--agent', COMMITTING_AGENT], { timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await readdir(logs)).sort()).toEqual(['20261130T000000Z-0b0b0b', r.json.runId].sort());
  }, 120_000);
});
