// Items: `.abcd/items/<slug>.md` on main, read in a fixed number of git processes; a bad file
// is refused alone; actionable() is one pure rule; a landing marks its item done in the
// landed commit, before the checks run.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { markDone, parseItemFile } from '../../src/items/item-file.js';
import { LocalItemSource } from '../../src/items/local-source.js';
import { Git } from '../../src/git/git.js';
import { actionable, followUpsOfLanding, reopenedItems, type LiveClaims } from '../../src/items/readiness.js';
import type { ClaimEntry, PendingEntry } from '../../src/repo/snapshot.js';
import type { ItemDoc } from '../../src/items/source.js';
import { parseItem } from '../../src/records/item.js';
import { cleanupTemp, git, tempDir } from '../harness/git-env.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';
import { laneRun } from '../harness/lanes.js';

afterAll(cleanupTemp);

const item = (title: string, status = 'ready', deps?: string[]) =>
  `---\ntitle: ${title}\nstatus: ${status}\n${deps ? `depends_on: [${deps.join(', ')}]\n` : ''}---\n\n${title}: the details.\n`;

/** A remote whose main holds these files (path under the repo → content), and a session on it. */
async function withItems(files: Record<string, string>, name = 'lister'): Promise<{ remote: BareRemote; s: Session }> {
  const remote = await makeRemote();
  const s = await makeSession(remote.url, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(s.dir, path, '..'), { recursive: true });
    await writeFile(join(s.dir, path), content);
  }
  await s.git(['add', '.']);
  await s.git(['commit', '-q', '-m', 'items']);
  await s.git(['push', '-q', 'origin', 'main']);
  return { remote, s };
}

const doc = (id: string, status: 'ready' | 'done', dependsOn: string[] = []): ItemDoc => ({
  key: parseItem(id),
  title: id,
  status,
  dependsOn: dependsOn.map((d) => `local:item:${d}`),
  body: '',
  path: `.abcd/items/${id}.md`,
});

describe('actionable(items, claims, pending)', () => {
  const items = [
    doc('setup', 'done'),
    doc('api', 'ready', ['setup']),
    doc('ui', 'ready', ['api']),
    doc('docs', 'ready'),
    doc('old', 'done'),
    doc('held', 'ready'),
  ];
  const claims: LiveClaims = new Map([['local:item:held', { holder: 'ann@x/h/s1', expiresAt: 1 }]]);

  it('takes ready items whose dependencies are done and no live claim holds; items others wait on first', () => {
    expect(actionable(items, claims, new Set()).map((i) => i.key.id)).toEqual(['api', 'docs']);
  });

  it('a pending request on a done item waits until it is reopened; then it is work, first in line; a held item stays with its holder', () => {
    const pending = new Set(['local:item:old', 'local:item:held']);
    expect(actionable(items, claims, pending).map((i) => i.key.id)).toEqual(['api', 'docs']);
    const reopened = new Set(['local:item:old']);
    expect(actionable(items, claims, pending, reopened).map((i) => i.key.id)).toEqual(['old', 'api', 'docs']);
    expect(actionable(items, claims, new Set(), reopened).map((i) => i.key.id)).toEqual(['api', 'docs', 'old']);
  });

  it('a done item is reopened by a held claim that keeps its landing, or by a follow-up asked before it landed', () => {
    const holder = { person: 'ann@x', host: 'h', session: 's1' };
    const landed = { main: 'main', tip: 'a'.repeat(40) };
    const claim = (id: string, state: 'held' | 'done', at: number, withLanding: boolean): ClaimEntry => ({
      ref: `refs/heads/abcd/claims/local/item/${id}`,
      item: `local:item:${id}`,
      tip: 'b'.repeat(40),
      claim: { abcd: 'claim', v: 1, item: `local:item:${id}`, state, holder, gen: 2, at, ttl: 1000, ...(withLanding ? { landed } : {}) },
    });
    const entries = [claim('old', 'held', 100, true), claim('held', 'held', 100, false), claim('setup', 'done', 500, true)];
    expect([...reopenedItems(entries)]).toEqual(['local:item:old']);
    const slot = (id: string, at: number) =>
      ({
        ref: `refs/heads/abcd/pending/local/item/${id}`,
        item: `local:item:${id}`,
        tip: 'c'.repeat(40),
        request: { at },
      }) as unknown as PendingEntry;
    const accepted = new Set(['local:item:setup']);
    expect([...followUpsOfLanding(entries, [slot('setup', 400)], accepted)]).toEqual(['local:item:setup']);
    // Written after the landing: stale. Not accepted (a stranger's): nothing.
    expect([...followUpsOfLanding(entries, [slot('setup', 600)], accepted)]).toEqual([]);
    expect([...followUpsOfLanding(entries, [slot('setup', 400)], new Set())]).toEqual([]);
  });

  it('among equals the oldest item comes first; an item of unknown age comes last', () => {
    const aged = [{ ...doc('b', 'ready'), addedAt: 2000 }, { ...doc('a', 'ready') }, { ...doc('c', 'ready'), addedAt: 1000 }];
    expect(actionable(aged, new Map(), new Set()).map((i) => i.key.id)).toEqual(['c', 'b', 'a']);
  });

  it('a lane that leaves its own claim out sees its item as work', () => {
    expect(actionable(items, new Map(), new Set()).map((i) => i.key.id)).toEqual(['api', 'docs', 'held']);
  });
});

describe('markDone', () => {
  it('rewrites the status line only, every other byte as it was (CRLF, comments, quotes)', () => {
    const text = '---\r\ntitle: "Fix: login"  \r\nstatus: ready # to do\r\ndepends_on: []\r\n---\r\nstatus: ready stays in the body\r\n';
    expect(markDone(text)).toBe(text.replace('status: ready # to do', 'status: done # to do'));
    expect(markDone("---\ntitle: t\nstatus: 'ready'\n---\n")).toBe("---\ntitle: t\nstatus: 'done'\n---\n");
    expect(markDone('---\ntitle: t\nstatus: done\n---\n')).toBeNull();
    expect(markDone('no front matter\nstatus: ready\n')).toBeNull();
  });

  it('what it writes reads back as done', () => {
    const marked = markDone(item('A title', 'ready', ['b']))!;
    expect(parseItemFile('.abcd/items/a.md', parseItem('a'), marked)).toMatchObject({
      status: 'done',
      title: 'A title',
      dependsOn: ['local:item:b'],
    });
  });
});

describe('abcd items', () => {
  it('lists status, readiness and claim; each malformed file is refused by name and the others still read', async () => {
    const { s } = await withItems({
      '.abcd/items/setup.md': item('Set up', 'done'),
      '.abcd/items/api.md': item('API', 'ready', ['setup']),
      '.abcd/items/ui.md': item('UI', 'ready', ['api']),
      '.abcd/items/held.md': item('Held one'),
      '.abcd/items/bad-yaml.md': '---\ntitle: [unclosed\nstatus: ready\n---\n',
      '.abcd/items/no-title.md': '---\nstatus: ready\n---\n',
      '.abcd/items/odd-status.md': '---\ntitle: t\nstatus: doing\n---\n',
      '.abcd/items/typo-key.md': '---\ntitle: t\nstatus: ready\ndepend_on: [api]\n---\n',
      '.abcd/items/needs-ghost.md': item('Ghost', 'ready', ['ghost']),
      '.abcd/items/loop-a.md': item('A', 'ready', ['loop-b']),
      '.abcd/items/loop-b.md': item('B', 'ready', ['loop-a']),
      '.abcd/items/after-loop.md': item('After', 'ready', ['loop-a']),
      '.abcd/items/Bad_Name.md': item('Bad name'),
      '.abcd/items/no-front.md': 'just text\n',
      '.abcd/items/hostile.md': '---\ntitle: "\\e[31mRed\\e]0;owned\\a title"\nstatus: done\n---\n',
      '.abcd/items/hostile-key.md': '---\ntitle: t\nstatus: ready\n"\\e[2Jwipe": 1\n---\n',
      '.abcd/items/notes/extra.txt': 'a folder of notes is no item\n',
    });
    const other = await makeSession(await s.git(['remote', 'get-url', 'origin']), 'holder');
    expect((await other.abcd(['reserve', 'held'])).code).toBe(0);

    const r = await s.abcd(['items', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const by = Object.fromEntries(r.json.items.map((i: { slug: string }) => [i.slug, i]));
    // Keys abcd does not read are the team's: the file still reads, and the key stays in it.
    expect(Object.keys(by).sort()).toEqual(['after-loop', 'api', 'held', 'hostile', 'hostile-key', 'setup', 'typo-key', 'ui']);
    expect(by['typo-key']).toMatchObject({ readiness: 'ready', dependsOn: [] });
    expect(by['hostile-key']).toMatchObject({ title: 't', readiness: 'ready' });
    expect(by.hostile.title).toBe('\u001b[31mRed\u001b]0;owned\u0007 title');
    expect(by.setup).toMatchObject({ status: 'done', readiness: 'done', claim: null });
    expect(by.api).toMatchObject({ key: 'local:item:api', status: 'ready', readiness: 'ready', dependsOn: ['local:item:setup'] });
    expect(by.ui).toMatchObject({ readiness: 'blocked', blockedBy: ['local:item:api'] });
    expect(by.held).toMatchObject({
      readiness: 'held',
      claim: { state: 'held', holder: expect.stringMatching(/^holder@example\.com\//), live: true },
    });
    expect(by['after-loop']).toMatchObject({ readiness: 'blocked', blockedBy: ['local:item:loop-a'] });
    const refused = Object.fromEntries(r.json.refused.map((f: { path: string }) => [f.path.replace('.abcd/items/', ''), f]));
    expect(refused).toMatchObject({
      'bad-yaml.md': { code: 'item-invalid', reason: 'yaml', key: 'local:item:bad-yaml' },
      'no-title.md': { reason: 'title' },
      'odd-status.md': { reason: 'status' },
      'needs-ghost.md': { reason: 'missing-dependency' },
      'loop-a.md': { reason: 'cycle' },
      'loop-b.md': { reason: 'cycle' },
      'Bad_Name.md': { reason: 'name', key: null },
      'no-front.md': { reason: 'front-matter' },
    });
    expect(Object.keys(refused)).toHaveLength(8);

    const text = await s.abcd(['items']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/ui\s+ready\s+blocked by api/);
    expect(text.stdout).toMatch(/held\s+ready\s+held by holder@example.com/);
    expect(text.stdout).toContain('8 refused');
    // Hostile text from item files reaches the terminal without its escapes.
    // eslint-disable-next-line no-control-regex -- control characters must not reach the terminal
    expect(text.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(text.stdout).toContain('?[31mRed?]0;owned? title');
  }, 120_000);

  it('says when each item entered main: the commit that last added its file', async () => {
    const { s } = await withItems({ '.abcd/items/first.md': item('First') });
    await writeFile(join(s.dir, '.abcd/items/second.md'), item('Second'));
    await s.git(['add', '.']);
    await execa('git', ['-C', s.dir, 'commit', '-q', '-m', 'second'], {
      env: { ...s.env, GIT_COMMITTER_DATE: '2030-01-01T00:00:00Z' },
      extendEnv: false,
    });
    await s.git(['push', '-q', 'origin', 'main']);
    const r = await s.abcd(['items', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const by = Object.fromEntries(r.json.items.map((i: { slug: string; addedAt: string }) => [i.slug, i.addedAt]));
    expect(Date.parse(by.second)).toBe(Date.parse('2030-01-01T00:00:00Z'));
    expect(Date.parse(by.first)).toBeLessThan(Date.parse(by.second));
  }, 60_000);

  it('reads 3 items and 60 items with the same number of git processes (one object reader for all)', async () => {
    const counts: number[] = [];
    for (const n of [3, 60]) {
      const files: Record<string, string> = {};
      for (let i = 0; i < n; i++) files[`.abcd/items/item-${i}.md`] = item(`Item ${i}`, i % 2 ? 'ready' : 'done');
      const { s } = await withItems(files, `count${n}`);
      // Packed, as a clone's objects are: loose ones are read from their files with no git at all.
      await s.git(['repack', '-adq']);
      // A git on PATH that logs each call, then runs the real one.
      const shim = await tempDir('git-shim');
      const real = (await execa('sh', ['-c', 'command -v git'], { env: s.env, extendEnv: false })).stdout.trim();
      const log = join(shim, 'calls.log');
      await writeFile(join(shim, 'git'), `#!/bin/sh\necho "$*" >> ${log}\nexec ${real} "$@"\n`);
      await chmod(join(shim, 'git'), 0o755);
      const r = await s.abcd(['items', '--json'], { env: { PATH: `${shim}:${s.env.PATH}` } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.json.items).toHaveLength(n);
      const calls = (await readFile(log, 'utf8')).trim().split('\n');
      // One object reader for main's config (the file and the trees that show it absent) and every item.
      expect(calls.filter((c) => c.includes('cat-file --batch'))).toHaveLength(1);
      // One read of .abcd/config.json (which item sources there are), never one per item.
      expect(calls.filter((c) => /cat-file (blob|-p)/.test(c) && !c.endsWith(':.abcd/config.json'))).toEqual([]);
      counts.push(calls.length);
    }
    expect(counts[1]).toBe(counts[0]);
  }, 120_000);
});

describe('LocalItemSource', () => {
  it('a source read again after main moved keeps the ages it knew and learns the new ones', async () => {
    const { s } = await withItems({ '.abcd/items/first.md': item('First') });
    const source = new LocalItemSource(new Git(s.dir, s.env));
    const tip1 = await s.git(['rev-parse', 'HEAD']);
    const one = await source.list(tip1);
    expect(one.items.map((i) => i.key.id)).toEqual(['first']);
    const firstAt = one.items[0]!.addedAt!;
    expect(firstAt).toBeGreaterThan(0);
    await writeFile(join(s.dir, '.abcd/items/second.md'), item('Second'));
    await s.git(['add', '.']);
    await execa('git', ['-C', s.dir, 'commit', '-q', '-m', 'second'], {
      env: { ...s.env, GIT_COMMITTER_DATE: '2031-05-05T00:00:00Z' },
      extendEnv: false,
    });
    const two = await source.list(await s.git(['rev-parse', 'HEAD']));
    expect(two.items.map((i) => [i.key.id, i.addedAt])).toEqual([
      ['first', firstAt],
      ['second', Date.parse('2031-05-05T00:00:00Z')],
    ]);
    // Back to the older tip (a reader of an older main): still right.
    expect((await source.list(tip1)).items.map((i) => i.key.id)).toEqual(['first']);
  });
});

describe('a landing marks its item done in the landed commit', () => {
  it('abcd land: the item file says done on main, in the very tree the check ran on; the rest of the file is unchanged', async () => {
    const original =
      '---\ntitle: Fix login\nstatus: ready   # set by the person\ndepends_on: []\n---\n\nThe login form drops the last character.\n';
    const { remote, s } = await withItems({
      '.abcd/items/fix-login.md': original,
      '.abcd/items/other.md': item('Other'),
      // The check fails unless the item is already marked done in the tree it tests.
      '.abcd/config.json': JSON.stringify({ land: { checks: 'grep -q "^status: done" .abcd/items/fix-login.md' } }),
    });
    expect((await s.abcd(['reserve', 'fix-login'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/fix-login']);
    await s.commit('login.txt', 'fixed\n');
    const r = await s.abcd(['land', 'fix-login', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const mainTip = (await remote.refs()).get('refs/heads/main')!;
    expect(r.json.tip).toBe(mainTip);
    const landed = await git(remote.dir, ['show', `${mainTip}:.abcd/items/fix-login.md`], s.env);
    expect(landed + '\n').toBe(original.replace('status: ready', 'status: done'));
    expect(await git(remote.dir, ['show', `${mainTip}:.abcd/items/other.md`], s.env)).toContain('status: ready');
    expect(await git(remote.dir, ['show', `${mainTip}:login.txt`], s.env)).toBe('fixed');
    const items = await s.abcd(['items', '--json']);
    expect(items.json.items.find((i: { slug: string }) => i.slug === 'fix-login')).toMatchObject({
      status: 'done',
      readiness: 'done',
      claim: { state: 'done' },
    });
  }, 120_000);

  it('abcd land --keep (more work to come) leaves the item ready', async () => {
    const { remote, s } = await withItems({ '.abcd/items/big-job.md': item('Big job') });
    expect((await s.abcd(['reserve', 'big-job'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/big-job']);
    await s.commit('part1.txt', 'one\n');
    const r = await s.abcd(['land', 'big-job', '--keep', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const mainTip = (await remote.refs()).get('refs/heads/main')!;
    expect(await git(remote.dir, ['show', `${mainTip}:.abcd/items/big-job.md`], s.env)).toContain('status: ready');
  }, 120_000);
});

// YAML that attacks the reader rather than describing an item: each is refused for its own
// file, as `yaml`, and the other items still list and build.
const ALIAS_BOMB =
  '---\ntitle: bomb\nstatus: ready\na: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n' +
  'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\n';
const DEEP = `---\ntitle: deep\nstatus: ready\nx: ${'['.repeat(5000)}${']'.repeat(5000)}\n---\n`;
const TAGGED = '---\ntitle: !!js/function "function(){}"\nstatus: ready\n---\n';
const HUGE = `---\ntitle: huge\nstatus: ready\n${'k: v\n'.repeat(1)}${'# pad\n'.repeat(4000)}---\n`;

describe('hostile YAML in item files', () => {
  it('an alias bomb, a deep nesting, an unknown tag and an oversized front matter are each item-invalid alone', () => {
    const key = parseItem('x');
    for (const text of [ALIAS_BOMB, DEEP, TAGGED, HUGE]) {
      let err: unknown;
      try {
        parseItemFile('.abcd/items/x.md', key, text);
      } catch (e) {
        err = e;
      }
      expect(err, text.slice(0, 40)).toMatchObject({ code: 'item-invalid', exit: 2, data: { reason: 'yaml', path: '.abcd/items/x.md' } });
    }
  });

  it('abcd items lists the good items beside an alias bomb, and abcd build still builds one', async () => {
    const { remote, s } = await withItems({
      '.abcd/items/bomb.md': ALIAS_BOMB,
      '.abcd/items/deep.md': DEEP,
      '.abcd/items/good.md': item('Good'),
    });
    const r = await s.abcd(['items', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.items.map((i: { slug: string }) => i.slug)).toEqual(['good']);
    const refused = Object.fromEntries(r.json.refused.map((f: { path: string; reason: string }) => [f.path, f.reason]));
    expect(refused).toEqual({ '.abcd/items/bomb.md': 'yaml', '.abcd/items/deep.md': 'yaml' });

    const b = await s.abcd(['build', 'good', '--json', '--sandbox', 'none', '--attended', '--agent', 'echo built > good.txt'], {
      timeoutMs: 120_000,
    });
    expect(b.code, b.stderr).toBe(0);
    expect(laneRun(b).outcome).toBe('landed');
    const show = await execa('git', ['-C', remote.dir, 'show', 'main:good.txt'], { reject: false });
    expect(String(show.stdout)).toBe('built');
  }, 150_000);
});
