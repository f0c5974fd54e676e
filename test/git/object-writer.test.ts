// The in-process record writer (ADR 0037): every object it writes is the object git's own
// plumbing writes for the same input, in SHA-1 and SHA-256 clones, under concurrent writers.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Git } from '../../src/git/git.js';
import { writeRecordCommit, plainIdent } from '../../src/records/objects.js';
import { hashObject, type ObjectStore } from '../../src/git/object-writer.js';
import { cleanupTemp, git, isolatedEnv, QUIET_CONFIG, tempDir } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';

async function makeClone(format: 'sha1' | 'sha256') {
  const root = await tempDir(`objects-${format}`);
  const env = isolatedEnv(root);
  const dir = join(root, 'clone');
  await git(root, ['init', '-q', `--object-format=${format}`, dir], env);
  for (const [k, v] of QUIET_CONFIG) await git(dir, ['config', k, v], env);
  const store: ObjectStore = { dir: join(dir, '.git', 'objects'), format };
  return { dir, env, store, git: new Git(dir, env) };
}

const cases = [
  {
    content: '{"abcd":"claim","v":1}\n',
    message: 'reserve local:item:a (generation 0)',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    parent: false,
  },
  { content: '{"note":"ünïcödé ✓ 漢字"}', message: 'release ✓\n\nbody line\n', name: 'Zoë Ünal', email: 'zoe@exämple.org', parent: true },
  { content: '', message: '', name: 'x', email: 'x@y', parent: true },
];

describe('the record writer', () => {
  afterAll(cleanupTemp);

  for (const format of ['sha1', 'sha256'] as const) {
    it(`writes the objects git writes (${format}), and git fsck finds the clone clean`, async () => {
      const ours = await makeClone(format);
      const theirs = await makeClone(format);
      let parentOurs: string | null = null;
      let parentTheirs: string | null = null;
      for (const [i, c] of cases.entries()) {
        const base = {
          content: c.content,
          message: c.message,
          author: { name: c.name, email: c.email },
          atMs: 1_764_000_000_000 + i * 1000,
        };
        const a = await writeRecordCommit({ ...base, git: ours.git, store: ours.store, parent: c.parent ? parentOurs : null });
        const b = await writeRecordCommit({ ...base, git: theirs.git, parent: c.parent ? parentTheirs : null });
        expect(a).toBe(b);
        expect(a).toHaveLength(format === 'sha1' ? 40 : 64);
        // The same bytes, read back by git from the object this module wrote.
        const raw = await git(ours.dir, ['cat-file', 'commit', a], ours.env);
        expect(raw).toBe(await git(theirs.dir, ['cat-file', 'commit', b], theirs.env));
        parentOurs = a;
        parentTheirs = b;
      }
      await git(ours.dir, ['update-ref', 'refs/heads/abcd/t', parentOurs!], ours.env);
      await git(ours.dir, ['fsck', '--strict', '--no-dangling', '--full'], ours.env);
      expect(await git(ours.dir, ['rev-list', '--count', 'refs/heads/abcd/t'], ours.env)).toBe('3');
    });
  }

  it('keeps every object intact under concurrent writers in one clone (abcd and git itself)', async () => {
    const c = await makeClone('sha1');
    const author = { name: 'Many Writers', email: 'many@example.com' };
    // 40 writers, half of them writing the same record at the same second: same objects at once.
    const writes = Array.from({ length: 40 }, (_, i) =>
      writeRecordCommit({
        git: c.git,
        store: c.store,
        content: `{"n":${i % 20}}`,
        parent: null,
        message: `w ${i % 20}`,
        author,
        atMs: 1_764_000_000_000,
      }),
    );
    const plumbing = Array.from({ length: 10 }, (_, i) =>
      writeRecordCommit({ git: c.git, content: `{"n":${i}}`, parent: null, message: `w ${i}`, author, atMs: 1_764_000_000_000 }),
    );
    const [ours, theirs] = await Promise.all([Promise.all(writes), Promise.all(plumbing)]);
    expect(new Set(ours).size).toBe(20);
    expect(ours.slice(0, 10)).toEqual(theirs);
    for (const [i, oid] of ours.slice(0, 20).entries()) await git(c.dir, ['update-ref', `refs/heads/abcd/w${i}`, oid], c.env);
    await git(c.dir, ['fsck', '--strict', '--no-dangling', '--full'], c.env);
    // No temporary file was left behind by a writer that found its object already there.
    const left = await git(c.dir, ['count-objects', '-v'], c.env);
    expect(left).toMatch(/^garbage: 0$/m);
  });

  it('hashes as git hash-object does', async () => {
    const c = await makeClone('sha256');
    const body = Buffer.from('a record\n');
    const p = join(c.dir, 'f');
    await writeFile(p, body);
    expect(hashObject('sha256', 'blob', body)).toBe(await git(c.dir, ['hash-object', '--no-filters', p], c.env));
  });

  it('leaves the writing to git when the object store cannot be written, and throws a bug on', async () => {
    const c = await makeClone('sha1');
    const base = {
      git: c.git,
      content: '{"a":1}\n',
      parent: null,
      message: 'm',
      author: { name: 'Ada', email: 'ada@example.com' },
      atMs: 1_764_000_000_000,
    };
    // A file where the store's folder would be: every mkdir in it fails, as on a read-only disk.
    const blocked = join(c.dir, 'not-a-folder');
    await writeFile(blocked, '');
    const oid = await writeRecordCommit({ ...base, store: { dir: join(blocked, 'objects'), format: 'sha1' } });
    expect(await git(c.dir, ['cat-file', '-t', oid], c.env)).toBe('commit');
    expect(await writeRecordCommit({ ...base, store: c.store })).toBe(oid);
    const wrong = { dir: c.store.dir, format: 'no-such-hash' } as unknown as ObjectStore;
    await expect(writeRecordCommit({ ...base, store: wrong })).rejects.toThrow(/digest/i);
  });

  it('leaves identities git would rewrite to git', () => {
    for (const ok of ['Ada', 'ada@example.com', 'Zoë Ünal', 'a.b@c']) expect(plainIdent(ok)).toBe(true);
    for (const bad of ['', ' Ada', 'Ada ', 'Ada.', '"Ada"', 'A<da', 'A\nda', '.ada@x', 'ada@x;']) expect(plainIdent(bad)).toBe(false);
  });
});

describe('abcd writes its records without a git process per object', () => {
  afterAll(cleanupTemp);

  async function loggedSession(name: string, remoteUrl: string) {
    const bin = await tempDir('gitlog');
    const log = join(bin, 'log');
    await writeFile(join(bin, 'git'), `#!/bin/sh\necho "$*" >> ${log}\nexec /usr/bin/git "$@"\n`, { mode: 0o755 });
    const s = await makeSession(remoteUrl, name);
    const env = { PATH: `${bin}:${s.env.PATH}` };
    return { s, env, log: async () => readFile(log, 'utf8').catch(() => '') };
  }

  it('reserves with no hash-object, mktree or commit-tree, and the remote accepts the objects', async () => {
    const remote = await makeRemote();
    const { s, env, log } = await loggedSession('writer', remote.url);
    const r = await s.abcd(['reserve', 'in-process', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(await log()).not.toMatch(/hash-object|mktree|commit-tree/);
    expect((await remote.refs()).get('refs/heads/abcd/claims/local/item/in-process')).toBe(r.json.claimTip);
    await git(remote.dir, ['fsck', '--strict', '--no-dangling'], isolatedEnv(remote.dir));
    const rel = await s.abcd(['release', 'in-process', '--json'], { env });
    expect(rel.code, rel.stderr).toBe(0);
  });

  it('leaves the writing to git in a shared repository (core.sharedRepository)', async () => {
    const remote = await makeRemote();
    const { s, env, log } = await loggedSession('shared', remote.url);
    await s.git(['config', 'core.sharedRepository', 'group']);
    const r = await s.abcd(['reserve', 'shared-item', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(await log()).toMatch(/commit-tree/);
    expect((await remote.refs()).get('refs/heads/abcd/claims/local/item/shared-item')).toBe(r.json.claimTip);
  });
});
