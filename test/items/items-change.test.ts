// `abcd items add` and `abcd items close`: a local item's file changes on main only through the
// land queue, so a remote whose main takes nothing but landings (a protected branch) still gets
// it; the person's checkout is never touched; hostile slugs and titles are refused before
// anything is written.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { parseItemFile } from '../../src/items/item-file.js';
import { parseItem } from '../../src/records/item.js';
import { claimRef, queueRef } from '../../src/records/refs.js';
import { cleanupTemp, isolatedEnv } from '../harness/git-env.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';

afterAll(cleanupTemp);

const FIX = parseItem('fix-login');
const ITEM_PATH = '.abcd/items/fix-login.md';

/**
 * A remote whose main takes only landings: a push that moves main without taking a queue entry
 * out in the same push is refused, as a protected branch refuses a person's direct push. Every
 * push's refs are logged, so a test sees which pushes went through the queue.
 */
async function protectedRemote(files: Record<string, string>): Promise<{ remote: BareRemote; s: Session; log: string }> {
  const remote = await makeRemote();
  const s = await makeSession(remote.url, 'ann');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(s.dir, path, '..'), { recursive: true });
    await writeFile(join(s.dir, path), content);
  }
  if (Object.keys(files).length) {
    await s.git(['add', '.']);
    await s.git(['commit', '-q', '-m', 'items']);
    await s.git(['push', '-q', 'origin', 'main']);
  }
  const log = join(remote.dir, 'pushes.log');
  await writeFile(
    join(remote.dir, 'hooks', 'pre-receive'),
    [
      '#!/bin/sh',
      'refs=$(cat)',
      `printf '%s\\n--\\n' "$refs" >> '${log}'`,
      'case "$refs" in *" refs/heads/main"*) ;; *) exit 0 ;; esac',
      'case "$refs" in *" refs/heads/abcd/queue/"*) exit 0 ;; esac',
      'echo "main is protected: it takes landings only" >&2',
      'exit 1',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return { remote, s, log };
}

/** Each logged push as the refs it updated. */
async function pushes(log: string): Promise<string[][]> {
  return (await readFile(log, 'utf8'))
    .split('--\n')
    .filter((p) => p.trim())
    .map((p) =>
      p
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[2]!),
    );
}

/** The file on the remote's main, byte for byte (git() trims its output). */
async function mainFile(remote: BareRemote, path: string): Promise<string | undefined> {
  const r = await execa('git', ['-C', remote.dir, 'cat-file', 'blob', `main:${path}`], {
    env: isolatedEnv(remote.dir),
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
  });
  return r.exitCode === 0 ? r.stdout : undefined;
}

describe('abcd items add and close', () => {
  it('add lands the item file through the queue on a main that refuses direct pushes; close marks it done the same way', async () => {
    const { remote, s, log } = await protectedRemote({
      '.abcd/items/setup.md': '---\ntitle: Set up\nstatus: done\n---\n',
    });
    // The remote is what it says: the person's own push of main is refused.
    await s.commit('direct.txt', 'x\n');
    await expect(s.git(['push', '-q', 'origin', 'main'])).rejects.toThrow(/main is protected/);
    await s.git(['reset', '-q', '--hard', 'origin/main']);
    await writeFile(log, '');
    const headBefore = await s.git(['rev-parse', 'HEAD']);
    await writeFile(join(s.dir, 'notes.md'), 'The login form drops the session.\n\nSteps: open it twice.\n');
    const mainBefore = (await remote.refs()).get('refs/heads/main');

    const add = await s.abcd([
      'items',
      'add',
      'fix-login',
      '--title',
      'Fix the login: it drops "sessions"',
      '--from-file',
      'notes.md',
      '--depends-on',
      'setup',
      '--json',
    ]);
    expect(add.code, add.stderr + add.stdout).toBe(0);
    expect(add.json).toMatchObject({ ok: true, action: 'add', item: 'fix-login', path: ITEM_PATH, changed: true, main: 'main' });
    const refs = await remote.refs();
    expect(refs.get('refs/heads/main')).toBe(add.json.tip);
    expect(add.json.tip).not.toBe(mainBefore);
    const text = await mainFile(remote, ITEM_PATH);
    const doc = parseItemFile(ITEM_PATH, FIX, text!);
    expect(doc).toMatchObject({ title: 'Fix the login: it drops "sessions"', status: 'ready', dependsOn: ['local:item:setup'] });
    expect(doc.body).toBe('\nThe login form drops the session.\n\nSteps: open it twice.\n');
    // Through the queue: an entry was pushed under the claim, and main moved in the push that took it out.
    const all = await pushes(log);
    const qref = queueRef(FIX);
    expect(all.some((p) => p.includes(qref) && !p.includes('refs/heads/main'))).toBe(true);
    expect(all.filter((p) => p.includes('refs/heads/main'))).toEqual([expect.arrayContaining(['refs/heads/main', qref, claimRef(FIX)])]);
    expect(refs.has(qref)).toBe(false);
    // The new item is work: ready, its claim released (not done), nothing left in the checkout.
    const listed = await s.abcd(['items', '--json']);
    const mine = listed.json.items.find((i: { slug: string }) => i.slug === 'fix-login');
    expect(mine).toMatchObject({ readiness: 'ready', status: 'ready', claim: { state: 'released' } });
    expect(await s.git(['rev-parse', 'HEAD'])).toBe(headBefore);
    expect(await s.git(['status', '--porcelain', '--untracked-files=no'])).toBe('');
    expect(await s.git(['for-each-ref', '--format=%(refname)', 'refs/heads/items/'])).toBe('');

    const close = await s.abcd(['items', 'close', 'fix-login', '--json']);
    expect(close.code, close.stderr + close.stdout).toBe(0);
    expect(close.json).toMatchObject({ action: 'close', changed: true });
    const closed = await mainFile(remote, ITEM_PATH);
    // One line changed, every other byte as it was.
    expect(closed).toBe(text!.replace('status: ready', 'status: done'));
    const after = await s.abcd(['items', '--json']);
    expect(after.json.items.find((i: { slug: string }) => i.slug === 'fix-login')).toMatchObject({
      status: 'done',
      readiness: 'done',
      claim: { state: 'done' },
    });
    expect((await pushes(log)).filter((p) => p.includes('refs/heads/main'))).toHaveLength(2);
    // Closing it again changes nothing.
    const again = await s.abcd(['items', 'close', 'fix-login', '--json']);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ changed: false, tip: null });
    expect((await remote.refs()).get('refs/heads/main')).toBe(close.json.tip);
  }, 120_000);

  it('an item file with keys abcd does not read (priority, owner) lists, and close keeps them', async () => {
    const file = '---\ntitle: Tune\nstatus: ready # until it lands\npriority: 2\nowner: ann\n---\nbody\n';
    const { remote, s } = await protectedRemote({ '.abcd/items/tune.md': file });
    const listed = await s.abcd(['items', '--json']);
    expect(listed.code).toBe(0);
    expect(listed.json.refused).toEqual([]);
    expect(listed.json.items).toMatchObject([{ slug: 'tune', readiness: 'ready' }]);
    const close = await s.abcd(['items', 'close', 'tune', '--json']);
    expect(close.code, close.stderr).toBe(0);
    expect(await mainFile(remote, '.abcd/items/tune.md')).toBe(file.replace('status: ready', 'status: done'));
  }, 60_000);

  it('refuses hostile slugs, titles and flags as usage errors before anything is written', async () => {
    const { remote, s } = await protectedRemote({ '.abcd/items/setup.md': '---\ntitle: Set up\nstatus: ready\n---\n' });
    const before = await remote.refs();
    const cases: Array<[string[], Record<string, unknown>]> = [
      [['items', 'add', '../etc', '--title', 't'], { item: '../etc' }],
      [['items', 'add', 'Fix_Login', '--title', 't'], { item: 'Fix_Login' }],
      [['items', 'add', 'a:b', '--title', 't'], { reason: 'a key has exactly three parts, source:kind:id' }],
      [['items', 'add', 'x.lock', '--title', 't'], { reason: 'it ends in ".lock"' }],
      [['items', 'add', 'github:issue:3', '--title', 't'], { item: 'github:issue:3', reason: 'not-local' }],
      [['items', 'add', 'ok', '--title', 'two\nlines'], { reason: 'it has a line break or a control character' }],
      [['items', 'add', 'ok', '--title', 'bell\u0007'], { reason: 'it has a line break or a control character' }],
      [['items', 'add', 'ok', '--title', '   '], { reason: 'it is empty' }],
      [['items', 'add', 'ok', '--title', 'x'.repeat(201)], { reason: 'it is 201 characters long, over 200' }],
      [['items', 'add', 'ok'], { reason: 'missing' }],
      [['items', 'add', 'ok', '--title', 't', '--depends-on', 'setup,,x'], { reason: 'empty name in --depends-on' }],
      [['items', 'add', 'ok', '--title', 't', '--depends-on', 'ghost'], { reason: 'missing-dependency', missing: ['ghost'] }],
      [['items', 'add', 'setup', '--title', 't'], { reason: 'exists', path: '.abcd/items/setup.md' }],
      [['items', 'add', 'ok', '--title', 't', '--from-file', 'nope.md'], { path: 'nope.md' }],
      [['items', 'close', 'ghost'], { item: 'local:item:ghost' }],
      [['items', 'close', 'setup', '--title', 't'], {}],
      [['items', 'tidy'], {}],
    ];
    for (const [args, data] of cases) {
      const r = await s.abcd([...args, '--json']);
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.json?.refusal?.code, args.join(' ')).toBe('usage');
      expect(r.json.refusal.data, args.join(' ')).toMatchObject(data);
    }
    // Nothing was claimed, queued or landed.
    expect(await remote.refs()).toEqual(before);
  }, 120_000);

  it('an item another session holds is refused, naming the holder, and main does not move', async () => {
    const { remote, s } = await protectedRemote({ '.abcd/items/setup.md': '---\ntitle: Set up\nstatus: ready\n---\n' });
    const bob = await makeSession(remote.url, 'bob');
    expect((await bob.abcd(['reserve', 'setup'])).code).toBe(0);
    const main = (await remote.refs()).get('refs/heads/main');
    const r = await s.abcd(['items', 'close', 'setup', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.refusal).toMatchObject({ code: 'held', data: { item: 'setup', holder: expect.stringMatching(/^bob@example\.com\//) } });
    expect((await remote.refs()).get('refs/heads/main')).toBe(main);
  }, 60_000);
});
