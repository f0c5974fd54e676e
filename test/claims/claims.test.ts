// reserve / push / fence over file:// and over a real smart-HTTP server.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { makeSession, type Json, type Session } from '../harness/session.js';
import { makeTransportRemote, type TransportRemote } from '../harness/transport.js';

const CLAIM = (id: string) => `refs/heads/abcd/claims/local/item/${id}`;

describe.each(['file', 'http'] as const)('claims over %s', (transport) => {
  let remote: TransportRemote;
  let a: Session;
  let b: Session;
  beforeAll(async () => {
    remote = await makeTransportRemote(transport);
    [a, b] = await Promise.all([makeSession(remote.cloneUrl, 'alice'), makeSession(remote.cloneUrl, 'bob')]);
    const s = await a.abcd(['settings', 'takeover-delay', '500ms']);
    expect(s.code, s.stderr).toBe(0);
  });
  afterAll(async () => {
    await remote.stop();
    await cleanupTemp();
  });

  it('a holder pushes its work branch and a tag with the claim renewal in one push', async () => {
    expect((await a.abcd(['reserve', 'feature'])).code).toBe(0);
    await a.git(['checkout', '-q', '-b', 'work/feature']);
    const head = await a.commit('feature.txt', 'one\n');
    const r = await a.abcd(['push', 'feature', '--tag', 'feature-v1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ ok: true, branch: 'work/feature', head, gen: 1 });
    const refs = await remote.refs();
    expect(refs.get('refs/heads/work/feature')).toBe(head);
    expect(refs.get('refs/tags/feature-v1')).toBe(head);
    expect(refs.get(CLAIM('feature'))).toBe(r.json.claimTip);
  });

  it('a session that never held the claim cannot push under it (exit 3)', async () => {
    await b.git(['checkout', '-q', '-b', 'work/intruder']);
    await b.commit('intruder.txt', 'x\n');
    const before = await remote.refs();
    const r = await b.abcd(['push', 'feature', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.refusal).toMatchObject({ code: 'not-holder', data: { item: 'feature', holder: expect.stringContaining('alice') } });
    expect(await remote.refs()).toEqual(before);
  });

  it('a holder whose claim expired and was taken over is fenced: exit 5, branch and tags unchanged', async () => {
    expect((await a.abcd(['reserve', 'fenced-item', '--ttl', '1s'])).code).toBe(0);
    await a.git(['checkout', '-q', '-b', 'work/fenced']);
    const first = await a.commit('fenced.txt', 'first\n');
    expect((await a.abcd(['push', 'fenced-item'])).code).toBe(0);
    const taken = await b.abcd(['reserve', 'fenced-item', '--wait', '20s', '--json']);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.json.tookOverFrom).toContain('alice');
    const before = await remote.refs();
    await a.commit('fenced.txt', 'second\n');
    const r = await a.abcd(['push', 'fenced-item', '--tag', 'fenced-v2', '--json']);
    expect(r.code).toBe(5);
    expect(r.json.refusal).toMatchObject({ code: 'fenced', data: { item: 'fenced-item', holder: expect.stringContaining('bob') } });
    const after = await remote.refs();
    expect(after.get('refs/heads/work/fenced')).toBe(first);
    expect(after.has('refs/tags/fenced-v2')).toBe(false);
    expect(after).toEqual(before);
  });

  it('renew and release need the claim; release frees the item for others', async () => {
    expect((await a.abcd(['reserve', 'shared'])).code).toBe(0);
    expect((await b.abcd(['renew', 'shared'])).code).toBe(3);
    const renewed = await a.abcd(['renew', 'shared', '--ttl', '2h', '--json']);
    expect(renewed.json).toMatchObject({ ok: true, gen: 1, state: 'held' });
    expect((await a.abcd(['release', 'shared'])).code).toBe(0);
    const r = await b.abcd(['reserve', 'shared', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.holder).toContain('bob');
  });
});

// A kill -9 after an act's push landed but before abcd noted it locally leaves this clone's
// memory saying "held": simulated by putting back the memory file the act removed.
describe('a retried act this session had already finished', () => {
  let remote: TransportRemote;
  let a: Session;
  const heldDir = () => join(a.dir, '.git', 'abcd', 'held', 'alice');
  /** Runs `act`, then restores the held memory as it was before it (the act was cut off). */
  async function cutOffAfter(act: () => Promise<void>): Promise<void> {
    const saved = new Map<string, Buffer>();
    for (const f of await readdir(heldDir())) saved.set(f, await readFile(join(heldDir(), f)));
    await act();
    for (const [f, body] of saved) await writeFile(join(heldDir(), f), body);
  }
  beforeAll(async () => {
    remote = await makeTransportRemote('file');
    a = await makeSession(remote.cloneUrl, 'alice');
  });
  afterAll(async () => {
    await remote.stop();
    await cleanupTemp();
  });

  it('a retried release answers that it is released, not fenced, and writes nothing', async () => {
    expect((await a.abcd(['reserve', 'cut-release'])).code).toBe(0);
    await cutOffAfter(async () => expect((await a.abcd(['release', 'cut-release'])).code).toBe(0));
    const before = await remote.refs();
    const r = await a.abcd(['release', 'cut-release', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ ok: true, state: 'released', gen: 1, already: true });
    expect(await remote.refs()).toEqual(before);
    const renew = await a.abcd(['renew', 'cut-release', '--json']);
    expect(renew.code).toBe(3);
    expect(renew.json.refusal).toMatchObject({ code: 'claim-ended', data: { item: 'cut-release', state: 'released', gen: 1 } });
    expect(renew.json.refusal.message).toMatch(/this session released cut-release itself/);
  });

  it('a retried land answers that the item already landed, naming where, and writes nothing', async () => {
    expect((await a.abcd(['reserve', 'cut-land'])).code).toBe(0);
    await a.git(['checkout', '-q', '-b', 'work/cut-land']);
    await a.commit('cut-land.txt', 'landed\n');
    let landed: Json;
    await cutOffAfter(async () => {
      const r = await a.abcd(['land', 'cut-land', '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      landed = r.json;
    });
    const before = await remote.refs();
    for (const verb of ['land', 'push']) {
      const r = await a.abcd([verb, 'cut-land', '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(3);
      expect(r.json.refusal).toMatchObject({ code: 'claim-ended', data: { state: 'done', landed: { main: 'main', tip: landed.tip } } });
      expect(r.json.refusal.message).toMatch(/already landed on main/);
    }
    expect(await remote.refs()).toEqual(before);
  });
  it('a push that finds the claim moved to this session’s own newer generation adopts it and pushes on top', async () => {
    expect((await a.abcd(['reserve', 'raced'])).code).toBe(0);
    await a.git(['checkout', '-q', '-b', 'work/raced']);
    const head = await a.commit('raced.txt', 'raced\n');
    // Once, just before the remote applies the push, another abcd process of this same session
    // writes the claim's next generation (same holder), as a concurrent renew would.
    const hook = join(remote.dir, 'hooks', 'pre-receive');
    await writeFile(
      hook,
      [
        '#!/bin/sh',
        'while read old new ref; do',
        '  [ "$ref" = refs/heads/abcd/claims/local/item/raced ] || continue',
        '  [ -e "$GIT_DIR/raced-once" ] && exit 0',
        '  touch "$GIT_DIR/raced-once"',
        '  g() { env -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES git "$@"; }',
        '  c=$(g commit-tree "$old^{tree}" -p "$old" -m "renew by a concurrent process of this session")',
        '  g update-ref "$ref" "$c" "$old"',
        'done',
        'exit 0',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const r = await a.abcd(['push', 'raced', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const refs = await remote.refs();
    expect(refs.get('refs/heads/work/raced')).toBe(head);
    expect(refs.get(CLAIM('raced'))).toBe(r.json.claimTip);
    // On top of the concurrent generation, not over it.
    const parent = (await execa('git', ['-C', remote.dir, 'rev-parse', `${r.json.claimTip}^`])).stdout.trim();
    expect(parent).not.toBe(r.json.claimTip);
    expect((await execa('git', ['-C', remote.dir, 'log', '-1', '--format=%s', parent])).stdout).toMatch(/concurrent process/);
  });
});
