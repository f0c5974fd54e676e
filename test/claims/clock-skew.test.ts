// A wrong clock never takes over or prunes what an honest session wrote within its lifetime
// (docs/guarantees.md, "Clocks"). The skewed session runs under Debian's libfaketime: the
// whole abcd process, git included, sees the shifted clock; the honest one sees the real one.
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote, writeRawRecord, type BareRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';
import { remoteWithItems } from '../harness/lanes.js';

const FAKETIME_LIB = '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1';
const claimRef = (id: string) => `refs/heads/abcd/claims/local/item/${id}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A session whose every abcd run sees the clock shifted by `offset` (libfaketime syntax). */
function skewed(remote: BareRemote, name: string, offset: string): Promise<Session> {
  return makeSession(remote.url, name, { env: { LD_PRELOAD: FAKETIME_LIB, FAKETIME: offset, FAKETIME_DONT_FAKE_MONOTONIC: '1' } });
}

async function honestWithDelay(remote: BareRemote, name: string, delay: string): Promise<Session> {
  const h = await makeSession(remote.url, name);
  const r = await h.abcd(['settings', 'takeover-delay', delay]);
  expect(r.code, r.stderr).toBe(0);
  return h;
}

describe.skipIf(!existsSync(FAKETIME_LIB))('clock skew (libfaketime)', () => {
  afterAll(cleanupTemp);

  it('the skewed clock is real: abcd under faketime +10m stamps its records 10 minutes ahead', async () => {
    const remote = await makeRemote();
    const s = await skewed(remote, 'probe', '+10m');
    const t0 = Date.now();
    const r = await s.abcd(['reserve', 'probe', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const expires = typeof r.json.expiresAt === 'string' ? Date.parse(r.json.expiresAt) : r.json.expiresAt;
    expect(expires - r.json.ttlMs - t0).toBeGreaterThan(9 * 60_000);
  }, 60_000);

  it('+10m, clock never measured: takes over only after watching the tip for ttl + delay itself', async () => {
    const remote = await makeRemote();
    const h = await honestWithDelay(remote, 'hana', '1s');
    const s = await skewed(remote, 'fast', '+10m');
    const written = Date.now();
    expect((await h.abcd(['reserve', 'x', '--ttl', '15s'])).code).toBe(0);
    const tip = (await remote.refs()).get(claimRef('x'));
    const first = await s.abcd(['reserve', 'x', '--json']);
    expect(first.json.refusal.code).toBe('takeover-too-soon');
    // Past the takeover delay of watching: today's rule let the fast clock take the live claim here.
    await sleep(2500);
    const second = await s.abcd(['reserve', 'x', '--json']);
    expect(second.code, second.stdout).toBe(3);
    expect(second.json.refusal.code).toBe('takeover-too-soon');
    expect((await remote.refs()).get(claimRef('x'))).toBe(tip);
    // The formula: ttl + delay of its own watching, so never before written + ttl + delay by real time.
    const took = await s.abcd(['reserve', 'x', '--json', '--wait', '40s']);
    expect(took.code, took.stdout).toBe(0);
    expect(took.json.tookOverFrom).toContain('hana');
    expect(Date.now()).toBeGreaterThanOrEqual(written + 15_000 + 1000);
  }, 120_000);

  it('+10m, clock measured from a renewal it watched: refuses the takeover with exit 7 naming the clock', async () => {
    const remote = await makeRemote();
    const h = await honestWithDelay(remote, 'hugo', '1s');
    const s = await skewed(remote, 'fast2', '+10m');
    expect((await h.abcd(['reserve', 'y', '--ttl', '5m'])).code).toBe(0);
    expect((await s.abcd(['status', '--json'])).code).toBe(0);
    expect((await h.abcd(['renew', 'y'])).code).toBe(0);
    const renewed = (await remote.refs()).get(claimRef('y'));
    await sleep(1500);
    // Several abcd processes in the one clone learn from the same change at once: each of them
    // either records the bracket or finds it recorded (it is written before the new last read).
    const many = await Promise.all([1, 2, 3, 4].map(() => s.abcd(['status', '--json'])));
    for (const m of many) {
      expect(m.code).toBe(0);
      expect(m.json.clockSkew).toMatchObject({ writer: expect.stringContaining('hugo'), limitMs: 60_000 });
      expect(m.json.clockSkew.minMs).toBeGreaterThan(60_000);
    }
    const r = await s.abcd(['reserve', 'y', '--json', '--wait', '10s']);
    expect(r.code, r.stdout).toBe(7);
    expect(r.json.refusal).toMatchObject({ code: 'clock-skewed', data: { clock: 'system', writer: expect.stringContaining('hugo') } });
    expect(r.json.refusal.data.skewMs.min).toBeGreaterThan(60_000);
    expect(r.json.refusal.message).toMatch(/clock is at least .* ahead of the clock of hugo/);
    expect((await remote.refs()).get(claimRef('y'))).toBe(renewed);
    // status still answers (exit 0) and deletes nothing.
    const st = await s.abcd(['status', '--json']);
    expect(st.code).toBe(0);
    expect((await remote.refs()).get(claimRef('y'))).toBe(renewed);
  }, 90_000);

  it('+2d: two status runs apart do not delete a live 1-minute claim, measured or not', async () => {
    const remote = await makeRemote();
    const h = await honestWithDelay(remote, 'hal', '500ms');
    const s = await skewed(remote, 'far', '+2d');
    expect((await h.abcd(['reserve', 'z', '--ttl', '60s'])).code).toBe(0);
    expect((await s.abcd(['status', '--json'])).code).toBe(0);
    await sleep(1500);
    const again = await s.abcd(['status', '--json']);
    expect(again.code).toBe(0);
    expect(again.json.pruned).toBe(0);
    expect((await remote.refs()).has(claimRef('z'))).toBe(true);
    // Once it has watched the holder renew, it knows its clock is off and refuses outright.
    expect((await h.abcd(['renew', 'z'])).code).toBe(0);
    expect((await s.abcd(['status', '--json'])).json.pruned).toBe(0);
    const r = await s.abcd(['reserve', 'z', '--json']);
    expect(r.code).toBe(7);
    expect(r.json.refusal.code).toBe('clock-skewed');
    expect((await remote.refs()).has(claimRef('z'))).toBe(true);
  }, 90_000);

  it('a clock that jumps +2d, then +15d between two runs in one clone takes nothing: watching is measured on the monotonic clock', async () => {
    const remote = await makeRemote();
    const h = await honestWithDelay(remote, 'jules', '500ms');
    const s = await skewed(remote, 'jumper', '+2d');
    expect((await h.abcd(['reserve', 'j', '--ttl', '60s'])).code).toBe(0);
    const tip = (await remote.refs()).get(claimRef('j'));
    expect((await s.abcd(['status', '--json'])).code).toBe(0);
    await sleep(1000);
    // The wall clock jumps 13 days between the two runs; the monotonic clock moved a second.
    const later = await s.abcd(['status', '--json'], { env: { FAKETIME: '+15d' } });
    expect(later.code).toBe(0);
    expect(later.json.pruned).toBe(0);
    const r = await s.abcd(['reserve', 'j', '--json'], { env: { FAKETIME: '+15d' } });
    expect(r.code, r.stdout).toBe(3);
    expect(r.json.refusal.code).toBe('takeover-too-soon');
    expect((await remote.refs()).get(claimRef('j'))).toBe(tip);
    // And back: the clock corrected to the true time takes nothing either.
    const back = await s.abcd(['reserve', 'j', '--json'], { env: { FAKETIME: '+0' } });
    expect(back.code, back.stdout).toBe(3);
    expect(back.json.refusal.code).toBe('held');
    expect((await remote.refs()).get(claimRef('j'))).toBe(tip);
  }, 90_000);

  it('+15d: one status does not delete a done record written a moment ago', async () => {
    const remote = await makeRemote();
    const holder = { person: 'honest@example.com', host: 'h', session: 'landed' };
    await writeRawRecord(
      remote.dir,
      claimRef('landed'),
      JSON.stringify({
        abcd: 'claim',
        v: 1,
        item: 'local:item:landed',
        state: 'done',
        holder,
        gen: 3,
        at: Date.now(),
        ttl: 60_000,
        landed: { main: 'main', tip: 'a'.repeat(40) },
      }),
    );
    const s = await skewed(remote, 'farther', '+15d');
    const r = await s.abcd(['status', '--json']);
    expect(r.code).toBe(0);
    expect(r.json.pruned).toBe(0);
    expect((await remote.refs()).has(claimRef('landed'))).toBe(true);
  }, 60_000);

  it('-10m: the slow clock refuses once it has measured itself, and the holder keeps claim and done record', async () => {
    const remote = await makeRemote();
    const h = await honestWithDelay(remote, 'hedy', '500ms');
    const s = await skewed(remote, 'slow', '-10m');
    expect((await h.abcd(['reserve', 'w', '--ttl', '3s'])).code).toBe(0);
    await writeRawRecord(
      remote.dir,
      claimRef('kept'),
      JSON.stringify({
        abcd: 'claim',
        v: 1,
        item: 'local:item:kept',
        state: 'done',
        holder: { person: 'hedy@example.com', host: 'h', session: 'old' },
        gen: 2,
        at: Date.now(),
        ttl: 60_000,
      }),
    );
    expect((await s.abcd(['status', '--json'])).code).toBe(0);
    expect((await h.abcd(['renew', 'w', '--ttl', '3s'])).code).toBe(0);
    const tip = (await remote.refs()).get(claimRef('w'));
    // Today the slow clock answers "held" here (exit 3); with its offset measured it refuses (exit 7).
    const r = await s.abcd(['reserve', 'w', '--json']);
    expect(r.code, r.stdout).toBe(7);
    expect(r.json.refusal).toMatchObject({ code: 'clock-skewed', data: { writer: expect.stringContaining('hedy') } });
    expect(r.json.refusal.data.skewMs.max).toBeLessThan(-60_000);
    expect(r.json.refusal.message).toMatch(/behind the clock of hedy/);
    expect((await s.abcd(['status', '--json'])).json.pruned).toBe(0);
    const refs = await remote.refs();
    expect(refs.get(claimRef('w'))).toBe(tip);
    expect(refs.has(claimRef('kept'))).toBe(true);
  }, 90_000);

  it('+50s, measured: status and items read a live claim as live, not as expired by the fast clock', async () => {
    const remote = await remoteWithItems([{ slug: 'w' }]);
    const h = await honestWithDelay(remote, 'hedda', '1s');
    const s = await skewed(remote, 'quick', '+50s');
    expect((await h.abcd(['reserve', 'w', '--ttl', '5m'])).code).toBe(0);
    expect((await s.abcd(['status', '--json'])).code).toBe(0);
    // A renewal s watches brackets its clock: about 50 s ahead of hedda's, within the limit.
    expect((await h.abcd(['renew', 'w', '--ttl', '20s'])).code).toBe(0);
    const st = await s.abcd(['status', '--json']);
    expect(st.code, st.stderr).toBe(0);
    expect(st.json.clockSkew ?? null).toBeNull();
    // By its own clock the 20 s claim expired 30 s ago; by hedda's it has nearly 20 s to run.
    const w = st.json.claims.find((c: { ref: string }) => c.ref === claimRef('w'));
    expect(w).toMatchObject({ state: 'held', stale: false });
    const items = await s.abcd(['items', '--json']);
    expect(items.code, items.stderr).toBe(0);
    expect(items.json.items.find((i: { slug: string }) => i.slug === 'w')).toMatchObject({ readiness: 'held' });
  }, 90_000);

  it('honest clocks, measured: a takeover comes at expiry + delay, sooner than watching alone, never before it', async () => {
    const remote = await makeRemote();
    const h = await honestWithDelay(remote, 'ines', '500ms');
    const o = await makeSession(remote.url, 'olaf');
    const written = Date.now();
    expect((await h.abcd(['reserve', 'u', '--ttl', '8s'])).code).toBe(0);
    expect((await o.abcd(['status', '--json'])).code).toBe(0);
    // A claim o watches appear brackets the offset between o's and ines's clocks.
    expect((await h.abcd(['reserve', 'other'])).code).toBe(0);
    expect((await o.abcd(['status', '--json'])).code).toBe(0);
    // First sighting of u well after its write: watching alone would take ttl + delay from here.
    await sleep(Math.max(0, written + 7000 - Date.now()));
    const took = await o.abcd(['reserve', 'u', '--json', '--wait', '30s']);
    expect(took.code, took.stdout).toBe(0);
    expect(took.json.tookOverFrom).toContain('ines');
    expect(Date.now()).toBeGreaterThanOrEqual(written + 8000 + 500);
    // Watching alone would have needed ttl + delay (8.5 s) from its first sighting of u.
    expect(took.json.waitedMs).toBeLessThan(8000);
  }, 90_000);
});
