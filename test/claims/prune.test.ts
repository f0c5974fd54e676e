// The record namespace stays proportional to live work: status prunes dead records with leases.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote, writeRawRecord } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';
import { systemClock } from '../../src/core/deps.js';
import { openRepo } from '../../src/repo/repo.js';
import { readSnapshot } from '../../src/repo/snapshot.js';
import { pruneBestEffort } from '../../src/claims/prune.js';
import { RemoteUnavailable } from '../../src/core/refusals.js';
import { envConfig } from '../../src/cli/env-config.js';

const ref = (id: string) => `refs/heads/abcd/claims/local/item/${id}`;
const DAY = 86_400_000;

function claim(id: string, state: string, at: number, ttl = 60_000) {
  return JSON.stringify({
    abcd: 'claim',
    v: 1,
    item: `local:item:${id}`,
    state,
    gen: 1,
    at,
    ttl,
    holder: { person: 'old@example.com', host: 'h', session: 'old' },
  });
}

describe('pruning', () => {
  afterAll(cleanupTemp);

  it('status deletes released, long-expired and old done claims, and keeps live and recent done ones', async () => {
    const remote = await makeRemote();
    const now = Date.now();
    await writeRawRecord(remote.dir, ref('released'), claim('released', 'released', now));
    await writeRawRecord(remote.dir, ref('expired-long-ago'), claim('expired-long-ago', 'held', now - 2 * DAY));
    await writeRawRecord(remote.dir, ref('expired-just-now'), claim('expired-just-now', 'held', now - 120_000));
    await writeRawRecord(remote.dir, ref('done-old'), claim('done-old', 'done', now - 20 * DAY));
    await writeRawRecord(remote.dir, ref('done-recent'), claim('done-recent', 'done', now - DAY));
    await writeRawRecord(remote.dir, ref('live'), claim('live', 'held', now, 3_600_000));
    const s = await makeSession(remote.url, 'pam');
    expect((await s.abcd(['settings', 'takeover-delay', '500ms'])).code).toBe(0);
    const r = await s.abcd(['status', '--json']);
    expect(r.code, r.stderr).toBe(0);
    // A clone that has not measured its clock cannot tell an old record from a fast clock of its
    // own: it prunes only what needs no clock (the released claim).
    expect(r.json.pruned).toBe(1);
    expect((await remote.refs()).has(ref('done-old'))).toBe(true);
    // Another session's claim appearing between two reads measures the clock; a held claim
    // also needs this clone's own sighting of it for the takeover delay.
    const w = await makeSession(remote.url, 'wes');
    expect((await w.abcd(['reserve', 'fresh'])).code).toBe(0);
    await new Promise((res) => setTimeout(res, 700));
    expect((await s.abcd(['status', '--json'])).json.pruned).toBe(2);
    const left = [...(await remote.refs()).keys()].filter((k) => k.startsWith('refs/heads/abcd/claims/')).sort();
    expect(left).toEqual([ref('done-recent'), ref('expired-just-now'), ref('fresh'), ref('live')]);
  });

  it('a reserve prunes in a push of its own once ten records are due, so a remote without status readers stays bounded', async () => {
    const remote = await makeRemote();
    for (let i = 0; i < 10; i++) await writeRawRecord(remote.dir, ref(`old-${i}`), claim(`old-${i}`, 'released', Date.now()));
    const s = await makeSession(remote.url, 'pia');
    const r = await s.abcd(['reserve', 'fresh', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const left = [...(await remote.refs()).keys()].filter((k) => k.startsWith('refs/heads/abcd/claims/'));
    expect(left).toEqual([ref('fresh')]);
  });

  it('nothing is pruned while the settings record cannot be read (its retention is unknown)', async () => {
    const remote = await makeRemote();
    await writeRawRecord(remote.dir, ref('released'), claim('released', 'released', Date.now()));
    await writeRawRecord(remote.dir, 'refs/heads/abcd/settings', JSON.stringify({ abcd: 'settings', v: 2 }));
    const s = await makeSession(remote.url, 'pat');
    const r = await s.abcd(['status', '--json']);
    expect(r.code).toBe(0);
    expect(r.json.pruned).toBe(0);
    expect(r.json.refused.map((x: { ref: string }) => x.ref)).toEqual(['refs/heads/abcd/settings']);
    expect((await remote.refs()).has(ref('released'))).toBe(true);
  });

  it('a record rewritten after it was read is not pruned (the delete carries a lease)', async () => {
    const remote = await makeRemote();
    const [s, t] = [await makeSession(remote.url, 'quinn'), await makeSession(remote.url, 'ruth')];
    expect((await s.abcd(['reserve', 'comeback'])).code).toBe(0);
    expect((await s.abcd(['release', 'comeback'])).code).toBe(0);
    const deps = {
      cwd: t.dir,
      env: t.env,
      config: envConfig(t.env),
      clock: systemClock,
      out: { stdout() {}, stderr() {}, isTTY: false },
      remote: 'origin',
    };
    const repo = await openRepo(deps);
    const stale = await readSnapshot(repo);
    expect(stale.claims.get(ref('comeback'))?.claim.state).toBe('released');
    // Between t's read and its prune, s takes the item again.
    expect((await s.abcd(['reserve', 'comeback'])).code).toBe(0);
    expect((await pruneBestEffort(repo, stale)).size).toBe(0);
    expect((await remote.refs()).has(ref('comeback'))).toBe(true);
    expect((await t.abcd(['status', '--json'])).json.claims.find((c: { item: string }) => c.item === 'comeback').state).toBe('held');
  });

  it('an unreachable remote means nothing pruned this time; any other failure (a bug) is not hidden as "nothing pruned"', async () => {
    const remote = await makeRemote();
    await writeRawRecord(remote.dir, ref('released'), claim('released', 'released', Date.now()));
    const t = await makeSession(remote.url, 'sven');
    const deps = {
      cwd: t.dir,
      env: t.env,
      config: envConfig(t.env),
      clock: systemClock,
      out: { stdout() {}, stderr() {}, isTTY: false },
      remote: 'origin',
    };
    const repo = await openRepo(deps);
    const snap = await readSnapshot(repo);
    const failing = (err: Error) => ({
      ...repo,
      store: Object.assign(Object.create(repo.store), { push: async () => Promise.reject(err) }),
    });
    const away = new RemoteUnavailable('the remote went away', { outcome: 'unknown' });
    expect((await pruneBestEffort(failing(away), snap)).size).toBe(0);
    await expect(pruneBestEffort(failing(new TypeError('a bug')), snap)).rejects.toThrow(TypeError);
    expect((await remote.refs()).has(ref('released'))).toBe(true);
  });
});
