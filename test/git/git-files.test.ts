// What abcd reads from a clone's files in process answers what git answers, and anything the
// readers do not read exactly as git does is handed back to git (undefined).
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/git/files/config-parse.js';
import { readCloneFromFiles } from '../../src/git/files/clone-read.js';
import { readLooseObject } from '../../src/git/files/loose-read.js';
import { readRefsFromFiles } from '../../src/git/files/refs-read.js';
import { currentBranch, readSymref } from '../../src/git/files/symref-read.js';
import { cleanupTemp, git, localClone } from '../harness/git-env.js';

async function clone() {
  return localClone('git-files', { name: 'a.txt', text: 'a\n' });
}

/** What `git for-each-ref` lists, as the reader answers it. */
async function forEachRef(dir: string, env: Record<string, string>, patterns: string[]) {
  const out = await git(dir, ['for-each-ref', '--format=%(objectname) %(refname)', ...patterns], env);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ oid: l.slice(0, l.indexOf(' ')), name: l.slice(l.indexOf(' ') + 1) }));
}

describe('refs from files', () => {
  afterAll(cleanupTemp);

  it('lists loose and packed refs under a prefix as for-each-ref does, a loose ref over its packed copy', async () => {
    const c = await clone();
    const second = await git(c.dir, ['commit-tree', '-m', 'b', `${c.tip}^{tree}`], c.env);
    const p = 'refs/abcd-cache/origin/';
    for (const n of ['claims/local/item/b', 'claims/local/item/a', 'settings', 'queue/local/item/z'])
      await git(c.dir, ['update-ref', p + n, c.tip], c.env);
    await git(c.dir, ['pack-refs', '--all'], c.env);
    await git(c.dir, ['update-ref', `${p}claims/local/item/a`, second], c.env); // loose again, newer
    await git(c.dir, ['update-ref', `${p}claims/local/item/c-1`, second], c.env);
    await git(c.dir, ['update-ref', 'refs/abcd-cache/origin-2/settings', c.tip], c.env); // a sibling, not under the prefix
    await git(c.dir, ['update-ref', 'refs/abcd-land/origin/main', second], c.env);
    const also = ['refs/abcd-land/origin/main', 'refs/abcd-land/origin/absent'];
    expect(await readRefsFromFiles(c.gitDir, p, also)).toEqual(await forEachRef(c.dir, c.env, [p, ...also]));
    expect((await readRefsFromFiles(c.gitDir, p))?.map((r) => r.name)).toEqual((await forEachRef(c.dir, c.env, [p])).map((r) => r.name));
  });

  it('answers an empty list for a prefix nothing is under, and undefined for what git must read', async () => {
    const c = await clone();
    const p = 'refs/abcd-cache/origin/';
    expect(await readRefsFromFiles(c.gitDir, p)).toEqual([]);
    await git(c.dir, ['update-ref', `${p}settings`, c.tip], c.env);
    // A symbolic ref under the prefix.
    await git(c.dir, ['symbolic-ref', `${p}claims/local/item/sym`, `${p}settings`], c.env);
    expect(await readRefsFromFiles(c.gitDir, p)).toBeUndefined();
    await rm(join(c.gitDir, p, 'claims'), { recursive: true });
    // A lock file of a write in flight.
    await writeFile(join(c.gitDir, p, 'settings.lock'), `${c.tip}\n`);
    expect(await readRefsFromFiles(c.gitDir, p)).toBeUndefined();
    await rm(join(c.gitDir, p, 'settings.lock'));
    expect(await readRefsFromFiles(c.gitDir, p)).toEqual(await forEachRef(c.dir, c.env, [p]));
    // A per-worktree ref, and a reftable repository.
    expect(await readRefsFromFiles(c.gitDir, p, ['refs/worktree/x'])).toBeUndefined();
    await mkdir(join(c.gitDir, 'reftable'));
    expect(await readRefsFromFiles(c.gitDir, p)).toBeUndefined();
  });
});

describe('config from files', () => {
  afterAll(cleanupTemp);

  it('parses every form git writes and reads as git config --list does', async () => {
    const c = await clone();
    const text = [
      '# a comment',
      '[core]',
      '\trepositoryformatversion = 0',
      '[User]',
      '  Email = "someone@example.com"  ; trailing comment',
      '  name = Some   "quoted  \\"name\\"" # tail',
      '[remote "Origin"] url = file:///x/y',
      '[remote "origin"]',
      '\turl = /path/with\\',
      'continued',
      '\tfetch = +refs/heads/*:refs/remotes/origin/*',
      '[branch.Main]',
      '\tbare',
      '\tempty =',
      '\ttabs = a\\tb\\nc',
      '[sec "sub \\"q\\" \\\\ x"]',
      '\tkey = v',
      '',
    ].join('\n');
    const file = join(c.root, 'cfg');
    await writeFile(file, text);
    const listed = (await git(c.dir, ['config', '-f', file, '-z', '--list'], c.env)).split('\0').filter(Boolean);
    const want = listed.map((e) =>
      e.includes('\n') ? { key: e.slice(0, e.indexOf('\n')), value: e.slice(e.indexOf('\n') + 1) } : { key: e, value: '' },
    );
    expect(parseConfig(text)).toEqual(want);
  });

  it('leaves includes and lines git refuses to git', () => {
    expect(parseConfig('[include]\n\tpath = other\n')).toBeUndefined();
    expect(parseConfig('[includeIf "gitdir:/x/"]\n\tpath = other\n')).toBeUndefined();
    expect(parseConfig('[core]\n\tkey = "open\n')).toBeUndefined();
    expect(parseConfig('[core]\n\tkey = bad \\q escape\n')).toBeUndefined();
    expect(parseConfig('key = no section\n')).toBeUndefined();
  });
});

describe('a clone from its files', () => {
  afterAll(cleanupTemp);

  async function revParse(cwd: string, env: Record<string, string>) {
    const out = await git(
      cwd,
      ['rev-parse', '--absolute-git-dir', '--git-common-dir', '--git-path', 'objects', '--show-object-format'],
      env,
    );
    const [gitDir, common, objects, format] = out.split('\n');
    // The same folders, whichever path names them (git names the common dir by the path it was run from).
    return {
      gitDir,
      commonDir: await realpath(resolve(cwd, common ?? '')),
      objectsDir: await realpath(resolve(cwd, objects ?? '')),
      format,
    };
  }

  it('finds the git dirs git finds, from a subfolder, a symlinked path and a linked worktree', async () => {
    const c = await clone();
    await mkdir(join(c.dir, 'sub', 'deeper'), { recursive: true });
    await symlink(c.dir, join(c.root, 'link'));
    const wt = join(c.root, 'wt');
    await git(c.dir, ['worktree', 'add', '-q', '-b', 'side', wt], c.env);
    for (const cwd of [c.dir, join(c.dir, 'sub', 'deeper'), join(c.root, 'link', 'sub'), wt]) {
      expect((await readCloneFromFiles(cwd, c.env))?.dirs).toEqual(await revParse(cwd, c.env));
    }
  });

  it("reads the config git would, global before the clone's, and hands anything unusual to git", async () => {
    const c = await clone();
    await git(c.dir, ['config', 'user.email', 'clone@example.com'], c.env);
    await writeFile(join(c.root, '.gitconfig'), '[user]\n\temail = global@example.com\n\tname = Global\n');
    const read = await readCloneFromFiles(c.dir, c.env);
    const values = read?.config.filter((e) => e.key.startsWith('user.')).map((e) => `${e.key}=${e.value}`);
    expect(values).toEqual((await git(c.dir, ['config', '--get-regexp', '^user\\.'], c.env)).split('\n').map((l) => l.replace(' ', '=')));
    expect(await readCloneFromFiles(c.dir, { ...c.env, GIT_DIR: c.gitDir })).toBeUndefined();
    expect(await readCloneFromFiles(c.dir, { ...c.env, GIT_CONFIG_PARAMETERS: "'user.email'='x@y'" })).toBeUndefined();
    expect(await readCloneFromFiles(c.root, c.env)).toBeUndefined(); // not inside a clone: git says so
    await writeFile(join(c.root, '.gitconfig'), '[includeIf "gitdir:~/"]\n\tpath = more\n');
    expect(await readCloneFromFiles(c.dir, c.env)).toBeUndefined();
    await writeFile(join(c.root, '.gitconfig'), '');
    await git(c.dir, ['config', 'extensions.worktreeConfig', 'true'], c.env);
    expect(await readCloneFromFiles(c.dir, c.env)).toBeUndefined();
  });
});

describe('symbolic refs from files', () => {
  afterAll(cleanupTemp);

  it('reads HEAD and a remote HEAD as symbolic-ref does, and leaves an ambiguous short name to git', async () => {
    const c = await clone();
    const dirs = { gitDir: c.gitDir, commonDir: c.gitDir };
    expect(await readSymref(dirs, 'HEAD')).toBe('refs/heads/main');
    expect(await currentBranch(dirs)).toBe('main');
    expect(await readSymref(dirs, 'refs/remotes/origin/HEAD')).toBeNull();
    await git(c.dir, ['update-ref', 'refs/remotes/origin/trunk', c.tip], c.env);
    await git(c.dir, ['symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/trunk'], c.env);
    expect(await readSymref(dirs, 'refs/remotes/origin/HEAD')).toBe('refs/remotes/origin/trunk');
    await git(c.dir, ['tag', 'main'], c.env);
    expect(await git(c.dir, ['symbolic-ref', '--short', 'HEAD'], c.env)).toBe('heads/main');
    expect(await currentBranch(dirs)).toBeUndefined();
    await git(c.dir, ['checkout', '-q', '--detach'], c.env);
    expect(await currentBranch(dirs)).toBeNull();
  });
});

describe('what the readers cannot read is left to git', () => {
  afterAll(cleanupTemp);

  it('a clone whose config is not a file, and a packed-refs that cannot be read, answer undefined', async () => {
    const c = await clone();
    const dirs = { gitDir: c.gitDir, commonDir: c.gitDir };
    await mkdir(join(c.gitDir, 'packed-refs'));
    // It might name refs/tags/main: the short name is git's to give.
    expect(await currentBranch(dirs)).toBeUndefined();
    await rm(join(c.gitDir, 'packed-refs'), { recursive: true });
    expect(await currentBranch(dirs)).toBe('main');
    expect(await readCloneFromFiles(c.dir, c.env)).toBeDefined();
    await rm(join(c.gitDir, 'config'));
    await mkdir(join(c.gitDir, 'config'));
    expect(await readCloneFromFiles(c.dir, c.env)).toBeUndefined();
    expect(await readCloneFromFiles(join(c.root, 'gone'), c.env)).toBeUndefined();
  });

  it('a loose object reads as git reads it, and one absent, damaged, too large or not a file reads as absent', async () => {
    const c = await clone();
    const objects = join(c.gitDir, 'objects');
    const path = (oid: string) => join(objects, oid.slice(0, 2), oid.slice(2));
    const read = await readLooseObject(objects, c.tip);
    expect(read?.type).toBe('commit');
    expect(read?.body.toString()).toBe(await git(c.dir, ['cat-file', 'commit', c.tip], c.env).then((t) => t + '\n'));
    expect(await readLooseObject(objects, 'f'.repeat(40))).toBeUndefined();
    const write = async (name: string, body: string | Buffer) => {
      await writeFile(join(c.root, name), body);
      return git(c.dir, ['hash-object', '-w', join(c.root, name)], c.env);
    };
    const damaged = await write('damaged.txt', 'damaged\n');
    await rm(path(damaged), { force: true });
    await writeFile(path(damaged), 'not zlib at all');
    expect(await readLooseObject(objects, damaged)).toBeUndefined();
    const truncated = await write('truncated.txt', 'truncated\n');
    const whole = await readFile(path(truncated));
    await rm(path(truncated), { force: true });
    await writeFile(path(truncated), whole.subarray(0, whole.length - 4));
    expect(await readLooseObject(objects, truncated)).toBeUndefined();
    expect(await readLooseObject(objects, await write('big.bin', randomBytes((1 << 20) + 1)))).toBeUndefined();
    const folder = 'e'.repeat(40);
    await mkdir(path(folder), { recursive: true });
    expect(await readLooseObject(objects, folder)).toBeUndefined();
  });
});
