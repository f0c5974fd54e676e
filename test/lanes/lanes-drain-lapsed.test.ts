// A `once` drain takes every item actionable when it starts, lapsed claims included: two drains
// killed with -9 while their agents run leave four claims to lapse, and a drain started after
// they lapsed takes those four over (once its own sighting has lasted the takeover delay) and the
// two nobody claimed, and lands all six before it ends.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git } from '../harness/git-env.js';
import { COMMITTING_AGENT, itemStatus, laneRun, laneSession, processesWith, remoteWithItems, killProcessesWith } from '../harness/lanes.js';
import { ABCD_BIN } from '../harness/session.js';
import { until } from '../harness/steer.js';

afterAll(cleanupTemp);

const SLUGS = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'];

describe('a once drain after lapsed claims', () => {
  it('takes over the claims two killed drains left and lands every item', async () => {
    const remote = await remoteWithItems(SLUGS.map((slug) => ({ slug })));
    const marker = `lapsed-drain-agent-${process.pid}-${Date.now()}`;
    const [a, b, c] = await Promise.all(['doomed-a', 'doomed-b', 'after'].map((n) => laneSession(remote, n)));
    expect((await a!.abcd(['settings', 'takeover-delay', '500ms'])).code).toBe(0);
    // Each doomed drain's two lanes claim an item and run an agent that never ends on its own.
    const doomed = [a!, b!].map((s) =>
      execa(process.execPath, [ABCD_BIN, 'drain', '--lanes', '2', '--ttl', '3s', '--agent', `sleep 600 # ${marker}`], {
        cwd: s.dir,
        env: s.env,
        extendEnv: false,
        reject: false,
      }),
    );
    const held = async () => {
      const out = await git(remote.dir, ['for-each-ref', '--format=%(refname)', 'refs/heads/abcd/claims/'], a!.env);
      const states = await Promise.all(
        out
          .split('\n')
          .filter(Boolean)
          .map(async (ref) => JSON.parse(await git(remote.dir, ['show', `${ref}:record.json`], a!.env))),
      );
      return states.filter((s) => s.state === 'held');
    };
    await until('both drains to run four agents', async () => (await processesWith(marker)).length >= 4 && (await held()).length === 4);
    for (const d of doomed) d.kill('SIGKILL');
    await Promise.all(doomed);
    await killProcessesWith(marker);
    // Started once every claim left is past its expiry: lapsed, not yet taken over.
    const claims = await held();
    const lapsedBy = Math.max(...claims.map((x) => x.at + x.ttl));
    await new Promise((res) => setTimeout(res, Math.max(0, lapsedBy - Date.now()) + 1000));
    const r = await c!.abcd(['drain', '--lifecycle', 'once', '--lanes', '2', '--json', '--agent', COMMITTING_AGENT], {
      timeoutMs: 120_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const cycles = laneRun(r).record.cycles as { item: string; outcome: string }[];
    expect(
      cycles
        .filter((x) => x.outcome === 'landed')
        .map((x) => x.item)
        .sort(),
    ).toEqual(SLUGS);
    for (const slug of SLUGS) expect(await itemStatus(remote, slug), slug).toBe('done');
  }, 180_000);
});
