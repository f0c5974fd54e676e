// A local git command that fails (a corrupt object store, a worktree git cannot add) is the
// clone's trouble, not a bug in abcd: a typed refusal, exit 9, with git's arguments, exit code
// and stderr in data (ADR 0028); exit 1 stays for real bugs.
import { writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitFailed } from '../../src/core/refusals.js';
import { Git } from '../../src/git/git.js';
import { GitRunner } from '../../src/git/runner.js';
import { localObjectUnreadable } from '../../src/git/transport-errors.js';
import { writeRecordCommit } from '../../src/records/objects.js';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';

afterAll(cleanupTemp);

const CLAIM = 'refs/heads/abcd/claims/local/item/fix-login';

describe('local git failures are refusals with data, not bugs', () => {
  /** A clone whose last claim record's tree is a corrupt loose object; the remote's tip of it. */
  async function corruptRecordTree(name: string) {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, name);
    expect((await s.abcd(['reserve', 'fix-login'])).code).toBe(0);
    expect((await s.abcd(['release', 'fix-login'])).code).toBe(0);
    // The record's tree was written in this clone, so a fetch finds it present and never
    // replaces it: corrupt the loose object and the next read or push of the record meets it.
    const tree = await s.git(['rev-parse', `${CLAIM}^{tree}`.replace('refs/heads/', 'refs/remotes/origin/')]);
    const file = join(s.dir, '.git/objects', tree.slice(0, 2), tree.slice(2));
    await rm(file, { force: true });
    await writeFile(file, 'not a zlib stream');
    return { remote, s, tree, tipBefore: (await remote.refs()).get(CLAIM) };
  }

  it('a corrupt object in the clone, read: exit 9 git-failed naming the git call, its exit code and stderr', async () => {
    const { remote, s, tree, tipBefore } = await corruptRecordTree('amy');
    // Without the tip cache (which learnt the record when this clone pushed it) the read meets the tree.
    await rm(join(s.dir, '.git/abcd/record-tips'), { force: true });

    const r = await s.abcd(['reserve', 'fix-login', '--json']);
    expect(r.code).toBe(9);
    expect(r.json.refusal).toMatchObject({ code: 'git-failed', exit: 9 });
    const data = r.json.refusal.data;
    expect(data.args[0]).toBe('cat-file');
    expect(data.exitCode).toBe(128);
    expect(data.stderr).toContain(tree);
    expect(data.stderr).toMatch(/corrupt/);
    expect(r.json.refusal.message).toMatch(/git fsck/);
    expect(r.stderr).not.toMatch(/this is a bug/);
    // Nothing half-done on the remote.
    expect((await remote.refs()).get(CLAIM)).toBe(tipBefore);
  });

  it('a corrupt object in the clone, pushed: exit 9 git-failed naming the push, not the remote as unavailable', async () => {
    const { remote, s, tree, tipBefore } = await corruptRecordTree('abe');
    // The tip cache knows the record, so the read starts no git; the push packs the corrupt tree
    // and the remote says "unpack failed" of the pack it never fully got.
    const r = await s.abcd(['reserve', 'fix-login', '--json']);
    expect(r.json?.refusal, r.stdout + r.stderr).toMatchObject({ code: 'git-failed', exit: 9 });
    expect(r.code).toBe(9);
    const data = r.json.refusal.data;
    expect(data.args).toContain('push');
    expect(data.stderr).toContain(tree);
    expect(data.stderr).toMatch(/corrupt/);
    expect(r.json.refusal.message).toMatch(/git fsck/);
    expect((await remote.refs()).get(CLAIM)).toBe(tipBefore);
  });

  it('a worktree git cannot add during land: exit 9 git-failed with the worktree call', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'bob');
    expect((await s.abcd(['reserve', 'fix-login'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/fix-login']);
    await s.commit('login.txt', 'fixed\n');
    const mainBefore = (await remote.refs()).get('refs/heads/main');
    // git keeps its worktrees' admin folders under .git/worktrees: a file there stops every add.
    await writeFile(join(s.dir, '.git/worktrees'), 'in the way\n');

    const r = await s.abcd(['land', 'fix-login', '--json']);
    expect(r.json?.refusal, r.stdout + r.stderr).toMatchObject({ code: 'git-failed', exit: 9 });
    expect(r.code).toBe(9);
    const data = r.json.refusal.data;
    expect(data.args.slice(0, 2)).toEqual(['worktree', 'add']);
    expect(data.exitCode).not.toBe(0);
    expect(data.stderr.length).toBeGreaterThan(0);
    expect((await remote.refs()).get('refs/heads/main')).toBe(mainBefore);
  });

  it('the record writer refuses with GitFailed when its parent commit is not in the store', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'cy');
    const git = new Git(s.dir, s.env);
    const e = await writeRecordCommit({
      git,
      content: '{}\n',
      parent: '0123456789abcdef0123456789abcdef01234567',
      message: 'record',
      author: { name: 'cy', email: 'cy@example.com' },
      atMs: Date.now(),
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GitFailed);
    const f = e as GitFailed;
    expect(f.exit).toBe(9);
    expect(f.data.args).toContain('commit-tree');
    expect(f.data.exitCode).toBe(128);
    expect(f.data.stderr).toMatch(/0123456789abcdef/);
  });

  it('a diff without a merge base (a shallow clone) is GitFailed whose message names the fix', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'eve');
    await s.git(['checkout', '-q', '-b', 'side']);
    await s.commit('side.txt', 'side\n');
    await s.git(['push', '-q', 'origin', 'side']);
    await s.git(['checkout', '-q', 'main']);
    await s.commit('main.txt', 'main\n');
    await s.git(['push', '-q', 'origin', 'main']);
    const shallow = join(s.dir, '..', 'shallow');
    await s.git(['clone', '-q', '--depth', '1', '--no-single-branch', remote.url, shallow]);
    const e = await new GitRunner(shallow, s.env).must(['diff', '--name-only', 'origin/main...origin/side']).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GitFailed);
    const f = e as GitFailed;
    expect(f.data.args).toEqual(['diff', '--name-only', 'origin/main...origin/side']);
    expect(f.data.stderr).toMatch(/merge base/);
    expect(f.message).toContain('git fetch --unshallow');
  });

  it('sanitizes what git printed: no terminal escapes reach the message or data', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'dee');
    const e = await new GitRunner(s.dir, s.env).must(['rev-parse', '--verify', 'no\x1b[31msuch']).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GitFailed);
    const f = e as GitFailed;
    // eslint-disable-next-line no-control-regex -- the escape character must not reach the refusal
    expect(JSON.stringify(f.data) + f.message).not.toMatch(/\x1b/);
  });
});

describe("a push's stderr names the clone's unreadable object only in git's own lines", () => {
  it("the clone's corrupt or missing object is its own; the remote's words about its store are not", () => {
    const oid = '9826485b4a576c47c9bd9b5e699a270b850d85d1';
    expect(
      localObjectUnreadable(`error: inflate: data stream error\nfatal: loose object ${oid} (stored in .git/objects/98/x) is corrupt\n`),
    ).toBe(true);
    expect(localObjectUnreadable(`fatal: bad object ${oid}\n`)).toBe(true);
    expect(
      localObjectUnreadable(
        `remote: fatal: loose object ${oid} (stored in ./objects/98/x) is corrupt\nerror: remote unpack failed: index-pack abnormal exit\n`,
      ),
    ).toBe(false);
    expect(localObjectUnreadable('error: remote unpack failed: unable to create temporary object directory\n')).toBe(false);
  });
});
