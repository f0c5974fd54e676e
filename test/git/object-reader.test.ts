// The verb's one object reader and what it answers in place of a git process each: a branch's
// commit, a commit's people, the paths two trees differ in, a worktree's HEAD. Each is compared
// with what git itself answers, on real repositories, and a git wrapper on PATH counts the
// processes: the answer must come without the git command it replaces.
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { Git } from '../../src/git/git.js';
import { cleanupTemp, git } from '../harness/git-env.js';
import { countedClone } from '../harness/counted-git.js';

/** A clone whose Git reads its files, and a wrapper that logs every git it starts. */
const fixture = () => countedClone('object-reader');

/** A raw object written as given (git's own checks skipped), its id. */
async function rawObject(dir: string, env: Record<string, string>, type: string, body: Buffer | string): Promise<string> {
  const r = await execa('git', ['-C', dir, 'hash-object', '-w', '--literally', '-t', type, '--stdin'], {
    env,
    extendEnv: false,
    input: body,
  });
  return r.stdout.trim();
}

/** A tree from `<mode> <name> <oid>` entries, written raw (sorted as git sorts them). */
async function tree(dir: string, env: Record<string, string>, entries: [string, string, string][]): Promise<string> {
  const key = ([mode, name]: [string, string, string]) => Buffer.from(mode === '40000' ? `${name}/` : name);
  const sorted = [...entries].sort((a, b) => Buffer.compare(key(a), key(b)));
  const body = Buffer.concat(sorted.map(([mode, name, oid]) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(oid, 'hex')])));
  return rawObject(dir, env, 'tree', body);
}

/** Moves every loose object into a pack (reachable or not), as a gc would. */
async function packAll(dir: string, gitDir: string, env: Record<string, string>): Promise<void> {
  const r = await execa('find', [join(gitDir, 'objects'), '-path', '*/objects/??/*', '-type', 'f'], { env, extendEnv: false });
  const oids = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((p) => p.split('/').slice(-2).join(''));
  await execa('git', ['-C', dir, 'pack-objects', '-q', join(gitDir, 'objects/pack/pack')], {
    env,
    extendEnv: false,
    input: oids.join('\n') + '\n',
  });
  await git(dir, ['prune-packed'], env);
}

async function blob(dir: string, env: Record<string, string>, text: string): Promise<string> {
  return rawObject(dir, env, 'blob', text);
}

async function commitOf(dir: string, env: Record<string, string>, treeId: string, message = 'm'): Promise<string> {
  return git(dir, ['commit-tree', '-m', message, treeId], env);
}

/** What `git diff --name-only --no-renames -z` lists from `a` to `b`. */
async function gitDiff(dir: string, env: Record<string, string>, a: string, b: string): Promise<string[]> {
  const r = await execa('git', ['-C', dir, 'diff', '--name-only', '--no-renames', '-z', a, b, '--'], {
    env,
    extendEnv: false,
    encoding: 'buffer',
  });
  return Buffer.from(r.stdout).toString().split('\0').filter(Boolean);
}

describe('the object reader', () => {
  afterAll(cleanupTemp);

  it('answers every read of a Git and its worktrees from one cat-file, objects written after it started included', async () => {
    const f = await fixture();
    const g = f.readerOnly();
    const spaced = await blob(f.dir, f.env, 'spaced\n');
    const t = await tree(f.dir, f.env, [['100644', 'a b.txt', spaced]]);
    await f.ran();
    const first = await g.objects.readObjects([`${t}:a b.txt`, `${t}:nothing here`, t]);
    expect(first.ok && first.value.map((o) => o && [o.type, o.content.toString('latin1').slice(0, 7)])).toEqual([
      ['blob', 'spaced\n'],
      undefined,
      ['tree', '100644 '],
    ]);
    // Written loose after the reader started, then packed away under it: both read.
    const later = await rawObject(f.dir, f.env, 'blob', 'later\n');
    const loose = await g.objects.readObjects([later]);
    const packedLater = await rawObject(f.dir, f.env, 'blob', 'packed later\n');
    await packAll(f.dir, f.gitDir, f.env);
    const wt = g.worktree(f.dir, { ...f.env, GIT_COMMITTER_NAME: 'Someone Else' });
    const [a, b] = await Promise.all([wt.objects.readObjects([packedLater, later]), g.objects.readObjects([spaced])]);
    expect(loose.ok && loose.value[0]?.content.toString()).toBe('later\n');
    expect(a.ok && a.value.map((o) => o?.content.toString())).toEqual(['packed later\n', 'later\n']);
    expect(b.ok && b.value[0]?.content.toString()).toBe('spaced\n');
    // A spec naming a ref reads through a cat-file of its own: what a ref names can change.
    const head = await g.objects.readObjects(['HEAD']);
    expect(head.ok && head.value[0]?.type).toBe('commit');
    expect(await f.ran()).toEqual(['cat-file', 'cat-file']);
  });

  it('reads large objects whole, however git splits them, between small and missing ones', async () => {
    const f = await fixture();
    const g = f.readerOnly();
    // Bytes that are no header and hold newlines, so a wrong boundary shows as a wrong answer.
    const big = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) % 251));
    const bodies = [big(3 << 20, 1), Buffer.from('small\n'), big(1 << 20, 7), Buffer.from(''), big(65_537, 3)];
    const oids = [];
    for (const b of bodies) oids.push(await rawObject(f.dir, f.env, 'blob', b));
    const specs = [oids[0]!, oids[1]!, 'e'.repeat(40), oids[2]!, oids[3]!, oids[4]!];
    // Twice in one batch, and a second read at the same time: the answers never mix.
    const [one, two] = await Promise.all([g.objects.readObjects([...specs, ...specs]), g.objects.readObjects([oids[2]!, oids[0]!])]);
    const want = [bodies[0], bodies[1], undefined, bodies[2], bodies[3], bodies[4]];
    const same = (got: { content: Buffer } | undefined, body: Buffer | undefined) =>
      got && body ? got.content.equals(body) : got === body;
    expect(one.ok && one.value.map((o, i) => same(o, [...want, ...want][i]))).toEqual(Array(12).fill(true));
    expect(two.ok && two.value.map((o, i) => same(o, [bodies[2], bodies[0]][i]))).toEqual([true, true]);
  });

  it('reads loose objects, a tree and a path in it from the files, and the rest through the reader', async () => {
    const f = await fixture();
    const g = f.counted();
    const inner = await tree(f.dir, f.env, [['100644', 'f é.txt', await blob(f.dir, f.env, 'f\n')]]);
    const t = await tree(f.dir, f.env, [
      ['40000', 'dir', inner],
      ['100644', 'x', await blob(f.dir, f.env, 'x\n')],
    ]);
    const c = await commitOf(f.dir, f.env, t);
    const specs = [c, `${c}^{tree}`, `${c}:dir/f é.txt`, `${c}:dir/absent`, `${c}:x/under-a-file`, `${c}:dir`, `${t}:x`];
    const viaGit = await f.readerOnly().objects.readObjects(specs);
    await f.ran();
    expect(await g.objects.readObjects(specs)).toEqual(viaGit);
    expect(await f.ran()).toEqual([]);
    // Packed: the reader answers, the same.
    await packAll(f.dir, f.gitDir, f.env);
    expect(await f.counted().objects.readObjects(specs)).toEqual(viaGit);
    expect(await f.ran()).toEqual(['cat-file']);
  });

  it('reads nothing from the files where a replace ref makes git read another object', async () => {
    const f = await fixture();
    const other = await commitOf(f.dir, f.env, await tree(f.dir, f.env, [['100644', 'other', await blob(f.dir, f.env, 'o\n')]]));
    await git(f.dir, ['replace', f.tip, other], f.env);
    const g = f.counted();
    await f.ran();
    const read = await g.objects.readObjects([`${f.tip}:other`]);
    expect(read.ok && read.value[0]?.content.toString()).toBe('o\n');
    // The reader reads the replacement, as git's log would.
    expect((await g.history.idents(f.tip)).committerName).toBe('Test Person');
    expect(await f.ran()).toEqual(['cat-file']);
  });
});

describe('a branch resolved from the files', () => {
  afterAll(cleanupTemp);

  it('answers rev-parse --verify <ref>^{commit} with no git for a loose or packed ref to a commit, and asks git otherwise', async () => {
    const f = await fixture();
    const g = f.counted();
    await git(f.dir, ['branch', 'work/loose'], f.env);
    await git(f.dir, ['branch', 'work/packed'], f.env);
    await git(f.dir, ['pack-refs', '--all'], f.env);
    await git(f.dir, ['branch', '-f', 'work/loose'], f.env);
    await f.ran();
    expect(await g.refs.commitOf('refs/heads/work/loose')).toBe(f.tip);
    expect(await g.refs.commitOf('refs/heads/work/packed')).toBe(f.tip);
    expect(await f.ran()).toEqual([]);
    // A tag to peel, a tree, a ref that is not there, a symbolic ref: git's answer, git asked.
    await git(f.dir, ['tag', '-a', '-m', 'tag', 'v1'], f.env);
    const tag = await git(f.dir, ['rev-parse', 'refs/tags/v1'], f.env);
    // git refuses to point a branch at anything but a commit; its files do not.
    await writeFile(join(f.gitDir, 'refs/heads/work/tag'), `${tag}\n`);
    await writeFile(join(f.gitDir, 'refs/heads/work/tree'), `${await git(f.dir, ['rev-parse', `${f.tip}^{tree}`], f.env)}\n`);
    await git(f.dir, ['symbolic-ref', 'refs/heads/work/sym', 'refs/heads/work/loose'], f.env);
    await f.ran();
    expect(await g.refs.commitOf('refs/heads/work/tag')).toBe(f.tip);
    expect(await g.refs.commitOf('refs/heads/work/tree')).toBeUndefined();
    expect(await g.refs.commitOf('refs/heads/work/absent')).toBeUndefined();
    expect(await g.refs.commitOf('refs/heads/work/sym')).toBe(f.tip);
    expect((await f.ran()).filter((c) => c === 'rev-parse')).toHaveLength(4);
    // Without the clone's files, git as before.
    expect(await new Git(f.dir, f.env).refs.commitOf('refs/heads/work/loose')).toBe(f.tip);
  });

  it("reads a worktree's detached HEAD from its files", async () => {
    const f = await fixture();
    const wtDir = join(f.root, 'wt');
    await git(f.dir, ['worktree', 'add', '--detach', '-q', wtDir, f.tip], f.env);
    const g = f.counted();
    await f.ran();
    expect(await g.worktree(wtDir).refs.detachedHead()).toBe(f.tip);
    expect(await f.ran()).toEqual([]);
    // On a branch: git says.
    expect(await g.refs.detachedHead()).toBe(f.tip);
    expect(await f.ran()).toEqual(['rev-parse']);
  });
});

describe("a commit's people from its object", () => {
  afterAll(cleanupTemp);

  const odd: [string, string][] = [
    ['plain', 'author Ann Author <ann@example.com> 1700000000 +0100\ncommitter Cy Committer <cy@example.com> 1700000001 -0500'],
    ['odd characters', 'author Zoë "Z" O\'Brien-Łukasz (ops) <zoë+x@exämple.com> 1 +0000\ncommitter 名前 \t<a b@c> 2 +0000'],
    ['spaces and control bytes', 'author  lead space\v\f <e> 1 +0000\ncommitter trail\r <x@y>z> 3 +0000'],
    ['no name, and a second < in the mail', 'author <only@mail> 1 +0000\ncommitter N <a<b@c> <d> 4 +0000'],
    [
      'the last line of each wins',
      'author First <f@x> 1 +0000\nauthor Second <s@x> 1 +0000\ncommitter One <1@x> 1 +0000\ncommitter Two <2@x> 1 +0000',
    ],
    ['no date', 'author A <a@x>\ncommitter C <c@x>'],
    [
      'a signed commit',
      'author A <a@x> 1 +0000\ncommitter C <c@x> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n committer Fake <fake@x> 1 +0000\n -----END PGP SIGNATURE-----',
    ],
  ];

  it.each(odd)('%s: the fields git log prints, with no git', async (_, people) => {
    const f = await fixture();
    const t = await git(f.dir, ['rev-parse', `${f.tip}^{tree}`], f.env);
    const c = await rawObject(f.dir, f.env, 'commit', `tree ${t}\n${people}\n\nmessage\n`);
    const g = f.counted();
    const [cn, ce, an, ae] = (await new Git(f.dir, f.env).history.show(c, '%cn%x00%ce%x00%an%x00%ae')).split('\0');
    await f.ran();
    expect(await g.history.idents(c)).toEqual({ committerName: cn, committerEmail: ce, authorName: an, authorEmail: ae });
    expect(await f.ran()).toEqual([]);
  });

  it('leaves to git a commit in another encoding, an ident git prints empty, and a log that re-encodes', async () => {
    const f = await fixture();
    const t = await git(f.dir, ['rev-parse', `${f.tip}^{tree}`], f.env);
    const latin = await rawObject(
      f.dir,
      f.env,
      'commit',
      Buffer.concat([
        Buffer.from(`tree ${t}\nauthor J`),
        Buffer.from([0xfc]),
        Buffer.from(`rgen <j@x> 1 +0000\ncommitter C <c@x> 1 +0000\nencoding ISO-8859-1\n\nm\n`),
      ]),
    );
    const broken = await rawObject(f.dir, f.env, 'commit', `tree ${t}\nauthor No Mail 1 +0000\ncommitter C <c@x> 1 +0000\n\nm\n`);
    const g = f.counted();
    await f.ran();
    expect((await g.history.idents(latin)).authorName).toBe('Jürgen');
    expect((await g.history.idents(broken)).authorName).toBe('');
    expect(await f.ran()).toEqual(['log', 'log']);
    const reencoding = new Git(f.dir, f.env, { files: { commonDir: f.gitDir, objectsDir: join(f.gitDir, 'objects'), plainLog: false } });
    expect((await reencoding.history.idents(f.tip)).committerName).toBe('Test Person');
  });
});

describe('the paths two trees differ in', () => {
  afterAll(cleanupTemp);

  it('lists what git diff --name-only lists, in its order, reading only the trees', async () => {
    const f = await fixture();
    const { dir, env } = f;
    const [one, two, three] = [await blob(dir, env, '1\n'), await blob(dir, env, '2\n'), await blob(dir, env, '3\n')];
    const sub = await tree(dir, env, [['100644', 'n', one]]);
    const deep = await tree(dir, env, [
      ['40000', 'e', sub],
      ['100644', 'same', two],
    ]);
    const deep2 = await tree(dir, env, [
      ['40000', 'e', await tree(dir, env, [['100644', 'n', two]])],
      ['100644', 'same', two],
    ]);
    const gone = await tree(dir, env, [
      ['100644', 'g1', one],
      ['40000', 'g2', sub],
    ]);
    const before = await tree(dir, env, [
      ['100644', 'mode', one],
      ['100644', 'link', one],
      ['100644', 'x', one],
      ['100644', 'x.txt', one],
      ['40000', 'd', deep],
      ['40000', 'gone', gone],
      ['40000', 'folder', sub],
      ['160000', 'sub', f.tip],
      ['100644', 'to-module', one],
      ['100644', 'unchanged', three],
      ['100644', 'é ü', one],
      ['100644', 'noncanon', one],
      ['40000', 'untouched', deep],
    ]);
    const second = await commitOf(dir, env, await git(dir, ['rev-parse', `${f.tip}^{tree}`], env), 'second');
    const after = await tree(dir, env, [
      ['100755', 'mode', one],
      ['120000', 'link', one],
      ['40000', 'x', sub],
      ['100644', 'x.txt', two],
      ['40000', 'd', deep2],
      ['100644', 'folder', one],
      ['160000', 'sub', second],
      ['160000', 'to-module', f.tip],
      ['100644', 'unchanged', three],
      ['100644', 'é ü', two],
      ['100664', 'noncanon', one],
      ['40000', 'untouched', deep],
      ['100644', 'new file\nwith a newline', one],
      ['40000', 'new', deep],
    ]);
    const [a, b] = [await commitOf(dir, env, before), await commitOf(dir, env, after)];
    await f.ran();
    const expected = await gitDiff(dir, env, a, b);
    expect(expected).toContain('mode');
    expect(expected).toContain('sub');
    expect(expected).not.toContain('noncanon');
    // From the loose files, then (without the clone's files) through the one reader.
    for (const g of [f.counted(), f.readerOnly()]) {
      expect(await g.diff.changedPathsBetween(a, b)).toEqual(expected);
      expect(await g.diff.changedPathsBetween(b, a)).toEqual(await gitDiff(dir, env, b, a));
      expect(await g.diff.changedPathsBetween(a, a)).toEqual([]);
    }
    expect(await f.ran()).toEqual(['cat-file']);
  });

  it('asks git when a tree is not one git reads the same way', async () => {
    const f = await fixture();
    const { dir, env } = f;
    const one = await blob(dir, env, '1\n');
    const good = await commitOf(dir, env, await tree(dir, env, [['100644', 'a', one]]));
    const entry = (name: string) => Buffer.concat([Buffer.from(`100644 ${name}\0`), Buffer.from(one, 'hex')]);
    const unsorted = await commitOf(dir, env, await rawObject(dir, env, 'tree', Buffer.concat([entry('b'), entry('a')])));
    const g = f.counted();
    await f.ran();
    expect(await g.diff.changedPathsBetween(good, unsorted)).toEqual(await gitDiff(dir, env, good, unsorted));
    expect(await f.ran()).toEqual(['diff']);
  });

  it('agrees with git on a real commit adding a symlink and a nested folder', async () => {
    const f = await fixture();
    const { dir, env } = f;
    await mkdir(join(dir, 'deep/er/still'), { recursive: true });
    await writeFile(join(dir, 'deep/er/still/f.txt'), 'f\n');
    await symlink('a.txt', join(dir, 'alias'));
    await git(dir, ['add', '.'], env);
    await git(dir, ['commit', '-q', '-m', 'more'], env);
    const head = await git(dir, ['rev-parse', 'HEAD'], env);
    expect(await gitDiff(dir, env, f.tip, head)).toEqual(['alias', 'deep/er/still/f.txt']);
    expect(await f.counted().diff.changedPathsBetween(f.tip, head)).toEqual(['alias', 'deep/er/still/f.txt']);
  });
});

describe('what a landing changes, for the item-files-only rule', () => {
  afterAll(cleanupTemp);

  it("counts a submodule bump that the landed tree's .gitmodules tells git diff to ignore", async () => {
    const f = await fixture();
    const { dir, env } = f;
    const modules = await blob(dir, env, '[submodule "sm"]\n\tpath = sm\n\turl = ./sm\n\tignore = all\n');
    const items = (text: string) => tree(dir, env, [['100644', 'a.md', text]]);
    const abcd = async (text: string) => tree(dir, env, [['40000', 'items', await items(await blob(dir, env, text))]]);
    const second = await commitOf(dir, env, await git(dir, ['rev-parse', `${f.tip}^{tree}`], env), 'second');
    const before = await commitOf(
      dir,
      env,
      await tree(dir, env, [
        ['100644', '.gitmodules', modules],
        ['40000', '.abcd', await abcd('one\n')],
        ['160000', 'sm', f.tip],
      ]),
    );
    const after = await commitOf(
      dir,
      env,
      await tree(dir, env, [
        ['100644', '.gitmodules', modules],
        ['40000', '.abcd', await abcd('two\n')],
        ['160000', 'sm', second],
      ]),
    );
    // git diff, run where that .gitmodules is checked out (as the land's worktree has it), leaves the bump out.
    const wtDir = join(f.root, 'landed');
    await git(dir, ['worktree', 'add', '--detach', '-q', wtDir, after], env);
    expect(await gitDiff(wtDir, env, before, after)).toEqual(['.abcd/items/a.md']);
    const { itemFilesOnly } = await import('../../src/land/checks/item-checks.js');
    const wt = f.counted().worktree(wtDir);
    expect(await wt.diff.changedPathsBetween(before, after)).toEqual(['.abcd/items/a.md', 'sm']);
    expect(await itemFilesOnly(wt, before, after)).toBeUndefined();
  });
});
