// Reserve of an item the cache shows free is one push (ADR 0039), and every rule a fetch would
// have served still holds: the holder, the cap, the settings. Behaviour only, over file:// and HTTP.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { makeTransportRemote, type Transport } from '../harness/transport.js';
import { makeSession, type Session } from '../harness/session.js';

const CLAIM = 'refs/heads/abcd/claims/local/item/';

/** A session whose git calls are logged, one line each, so a test can see which ran. */
async function logged(url: string, name: string, person?: string) {
  const bin = await tempDir('gitlog');
  const log = join(bin, 'log');
  await writeFile(join(bin, 'git'), `#!/bin/sh\necho "$1 $2 $3 $4 $5" >> ${log}\nexec /usr/bin/git "$@"\n`, { mode: 0o755 });
  const s = await makeSession(url, name, person ? { person } : {});
  const env = { PATH: `${bin}:${s.env.PATH}` };
  const run = async (args: string[]) => {
    await writeFile(log, '');
    const r = await s.abcd(args, { env });
    return { ...r, git: (await readFile(log, 'utf8')).split('\n').filter(Boolean) };
  };
  return { s, run };
}

const networkCalls = (lines: string[]) =>
  lines.filter((l) => /\b(fetch|push|ls-remote)\b/.test(l)).map((l) => l.match(/\b(fetch|push|ls-remote)\b/)![1]);

describe.each<Transport>(['file', 'http'])('reserve from the cache (%s)', (transport) => {
  afterAll(cleanupTemp);

  it('takes an item the cache shows free with one push and no fetch', async () => {
    const remote = await makeTransportRemote(transport);
    try {
      const { s, run } = await logged(remote.cloneUrl, 'solo');
      expect((await s.abcd(['status'])).code).toBe(0);
      const r = await run(['reserve', 'quick', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(networkCalls(r.git)).toEqual(['push']);
      expect((await remote.refs()).get(`${CLAIM}quick`)).toBe(r.json.claimTip);
      // A later reader sees an ordinary claim.
      const st = await s.abcd(['status', '--json']);
      expect(JSON.stringify(st.json)).toContain('quick');
    } finally {
      await remote.stop();
    }
  });

  it('refuses an item taken since the cache was read (exit 3, held), and the remote keeps the holder', async () => {
    const remote = await makeTransportRemote(transport);
    try {
      const { s: a, run } = await logged(remote.cloneUrl, 'alice');
      const b: Session = await makeSession(remote.cloneUrl, 'bob');
      expect((await a.abcd(['status'])).code).toBe(0);
      const took = await b.abcd(['reserve', 'contested', '--json']);
      expect(took.code, took.stderr).toBe(0);
      const r = await run(['reserve', 'contested', '--json']);
      expect(r.code).toBe(3);
      expect(r.json.refusal).toMatchObject({ code: 'held', data: { holder: expect.stringContaining('bob') } });
      expect((await remote.refs()).get(`${CLAIM}contested`)).toBe(took.json.claimTip);
    } finally {
      await remote.stop();
    }
  });
});

describe('reserve from the cache keeps the cap and the settings', () => {
  afterAll(cleanupTemp);

  it('counts claims the same person took from another clone since the cache was read', async () => {
    const remote = await makeTransportRemote('file');
    const person = 'pat@example.com';
    const { s: here, run } = await logged(remote.cloneUrl, 'here', person);
    const there = await makeSession(remote.cloneUrl, 'there', { person });
    expect((await here.abcd(['settings', 'reservation-cap', '2'])).code).toBe(0);
    expect((await here.abcd(['status'])).code).toBe(0);
    for (const item of ['one', 'two']) expect((await there.abcd(['reserve', item])).code).toBe(0);
    // This clone's cache shows none of pat's claims; the remote has two, the cap is 2.
    const r = await run(['reserve', 'three', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.refusal).toMatchObject({ code: 'cap-reached', data: { cap: 2, held: expect.arrayContaining(['one', 'two']) } });
    expect((await remote.refs()).has(`${CLAIM}three`)).toBe(false);
  });

  it('takes the one-push path while the changes since the cache cannot reach the cap', async () => {
    const remote = await makeTransportRemote('file');
    const person = 'kim@example.com';
    const { s: here, run } = await logged(remote.cloneUrl, 'here', person);
    const there = await makeSession(remote.cloneUrl, 'there', { person });
    expect((await here.abcd(['settings', 'reservation-cap', '3'])).code).toBe(0);
    expect((await here.abcd(['status'])).code).toBe(0);
    expect((await there.abcd(['reserve', 'one'])).code).toBe(0);
    const r = await run(['reserve', 'two', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(networkCalls(r.git)).toEqual(['push']);
    // Now at 2 of 3 with nothing cached changed: the last one is still one push...
    const r3 = await run(['reserve', 'three', '--json']);
    expect(r3.code, r3.stderr).toBe(0);
    // ...and the fourth is refused after a fetch, as before.
    const r4 = await run(['reserve', 'four', '--json']);
    expect(r4.code).toBe(3);
    expect(r4.json.refusal.code).toBe('cap-reached');
    expect(networkCalls(r4.git)).toContain('fetch');
  });

  it('uses settings changed since the cache was read', async () => {
    const remote = await makeTransportRemote('file');
    const { s: a, run } = await logged(remote.cloneUrl, 'ann');
    const b = await makeSession(remote.cloneUrl, 'ben');
    expect((await a.abcd(['status'])).code).toBe(0);
    expect((await b.abcd(['settings', 'default-ttl', '7m'])).code).toBe(0);
    const r = await run(['reserve', 'ttl-item', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.ttlMs).toBe(7 * 60_000);
    expect(networkCalls(r.git)).toContain('fetch');
  });
});

describe('verbs that read first start their fetch before their own modules load', () => {
  afterAll(cleanupTemp);

  it('status, renew, push, announce and release each fetch once and see what another clone wrote just before', async () => {
    const remote = await makeTransportRemote('file');
    try {
      const { s, run } = await logged(remote.cloneUrl, 'early');
      const other = await makeSession(remote.cloneUrl, 'other');
      expect((await s.abcd(['reserve', 'mine'])).code).toBe(0);
      // Written after this clone's last read: only the verb's own fetch can show it.
      expect((await other.abcd(['reserve', 'theirs'])).code).toBe(0);
      const st = await run(['status', '--json']);
      expect(st.code, st.stderr).toBe(0);
      expect(networkCalls(st.git)).toEqual(['fetch']);
      expect(JSON.stringify(st.json)).toContain('theirs');
      const renewed = await run(['renew', 'mine', '--json']);
      expect(renewed.code, renewed.stderr).toBe(0);
      expect(networkCalls(renewed.git)).toEqual(['fetch', 'push']);
      await s.git(['checkout', '-q', '-b', 'work']);
      await s.git(['commit', '-q', '--allow-empty', '-m', 'work']);
      const pushed = await run(['push', 'mine', 'work', '--json']);
      expect(pushed.code, pushed.stderr).toBe(0);
      expect(networkCalls(pushed.git)).toEqual(['fetch', 'push']);
      const said = await run(['announce', 'working', 'mine', 'on it', '--json']);
      expect(said.code, said.stderr).toBe(0);
      expect(networkCalls(said.git)).toEqual(['fetch', 'push']);
      const released = await run(['release', 'mine', '--json']);
      expect(released.code, released.stderr).toBe(0);
      expect(networkCalls(released.git)).toEqual(['fetch', 'push']);
      expect((await remote.refs()).get(`${CLAIM}mine`)).toBe(released.json.claimTip);
    } finally {
      await remote.stop();
    }
  });
});
