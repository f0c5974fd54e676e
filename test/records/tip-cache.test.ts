// The record cache's refs read from the clone's files and its tips kept once read answer the
// same records as git's for-each-ref and cat-file, and a tip read before needs no git process.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { Git } from '../../src/git/git.js';
import { RecordStore } from '../../src/records/store.js';
import { MAX_RECORD_BYTES } from '../../src/records/envelope.js';
import { learnPushed } from '../../src/records/store-cache.js';
import { cleanupTemp, git, localClone } from '../harness/git-env.js';

const P = 'refs/abcd-cache/origin/';

async function clone() {
  return localClone('tip-cache');
}

/** A record commit holding `files`, at `ref` in the clone. */
async function record(dir: string, env: Record<string, string>, ref: string, files: Record<string, string | Buffer>): Promise<string> {
  const lines = [];
  for (const [name, content] of Object.entries(files)) {
    const blob = await execa('git', ['-C', dir, 'hash-object', '-w', '--stdin'], { env, extendEnv: false, input: content });
    lines.push(`100644 blob ${blob.stdout.trim()}\t${name}\n`);
  }
  const tree = await execa('git', ['-C', dir, 'mktree'], { env, extendEnv: false, input: lines.join('') });
  const commit = await git(dir, ['commit-tree', tree.stdout.trim(), '-m', 'record'], env);
  await git(dir, ['update-ref', ref, commit], env);
  return commit;
}

function stores(c: { dir: string; env: Record<string, string>; gitDir: string }, env = c.env) {
  const bounds = { capMs: 30_000, now: () => Date.now(), sleep: async () => undefined };
  return {
    plain: new RecordStore(new Git(c.dir, c.env), 'origin', bounds),
    files: new RecordStore(new Git(c.dir, env), 'origin', {
      ...bounds,
      files: { commonDir: c.gitDir, tipCache: join(c.gitDir, 'abcd', 'record-tips') },
    }),
  };
}

/** An environment whose git refuses every cat-file, to show a read started none. */
async function noCatFile(root: string, env: Record<string, string>): Promise<Record<string, string>> {
  const bin = join(root, 'no-cat-file');
  await mkdir(bin, { recursive: true });
  await writeFile(
    join(bin, 'git'),
    `#!/bin/sh\nfor a in "$@"; do [ "$a" = cat-file ] && { echo "cat-file was run" >&2; exit 1; }; done\nexec /usr/bin/git "$@"\n`,
  );
  await chmod(join(bin, 'git'), 0o755);
  return { ...env, PATH: `${bin}:${env.PATH ?? '/usr/bin:/bin'}` };
}

describe('the tip cache', () => {
  afterAll(cleanupTemp);

  it('answers what git answers, then reads only tips it has not seen', async () => {
    const c = await clone();
    await record(c.dir, c.env, `${P}claims/local/item/a`, { 'record.json': '{"a":1}' });
    await record(c.dir, c.env, `${P}claims/local/item/extra`, { 'record.json': '{"b":1}', 'other.txt': 'x' });
    await record(c.dir, c.env, `${P}claims/local/item/none`, { 'other.txt': 'x' });
    await record(c.dir, c.env, `${P}claims/local/item/big`, { 'record.json': Buffer.alloc(MAX_RECORD_BYTES + 1, 32) });
    await git(c.dir, ['pack-refs', '--all'], c.env);
    await record(c.dir, c.env, `${P}settings`, { 'record.json': '{"s":1}' });
    const { plain, files } = stores(c);
    const want = await plain.readCached();
    expect(want.map((r) => r.ref)).toHaveLength(5);
    expect(await files.readCached()).toEqual(want);
    // Every tip is kept now: a second read starts no cat-file.
    const cached = stores(c, await noCatFile(c.root, c.env)).files;
    expect(await cached.readCached()).toEqual(want);
    // One tip moves: it alone is read, and the answer is git's again.
    await record(c.dir, c.env, `${P}claims/local/item/a`, { 'record.json': '{"a":2}' });
    await expect(cached.readCached()).rejects.toThrow(/cat-file/);
    expect(await files.readCached()).toEqual(await plain.readCached());
    expect(await cached.readCached()).toEqual(await plain.readCached());
  });

  it('learns a pushed record from the loose objects it wrote, the same record git reads, and leaves any other shape to git', async () => {
    const c = await clone();
    const tipCache = join(c.gitDir, 'abcd', 'record-tips');
    const objectsDir = join(c.gitDir, 'objects');
    const old = await record(c.dir, c.env, `${P}claims/local/item/a`, { 'record.json': '{"a":1}' });
    await stores(c).files.readCached();
    const tip = await record(c.dir, c.env, `${P}claims/local/item/a`, { 'record.json': '{"a":2}' });
    const extra = await record(c.dir, c.env, `${P}claims/local/item/b`, { 'record.json': '{"b":1}', 'other.txt': 'x' });
    await learnPushed({ tipCache, objectsDir }, [
      { ref: 'refs/heads/abcd/claims/local/item/a', newOid: tip, lease: old },
      { ref: 'refs/heads/abcd/claims/local/item/b', newOid: extra, lease: null },
    ]);
    // The record of two files is not learned: reading it starts a cat-file, and only it.
    const cached = stores(c, await noCatFile(c.root, c.env)).files;
    await expect(cached.readCached()).rejects.toThrow(/cat-file/);
    await git(c.dir, ['update-ref', '-d', `${P}claims/local/item/b`], c.env);
    const want = await stores(c).plain.readCached();
    expect(want.map((r) => r.blob?.toString())).toEqual(['{"a":2}']);
    expect(await cached.readCached()).toEqual(want);
  });

  it('keeps a tip no ref lists yet beside the old one, so neither read between a push and the next fetch asks git', async () => {
    const c = await clone();
    const tipCache = join(c.gitDir, 'abcd', 'record-tips');
    const ref = `${P}claims/local/item/a`;
    const old = await record(c.dir, c.env, ref, { 'record.json': '{"a":1}' });
    await stores(c).files.readCached();
    // The pushed record's commit exists, and the cache ref still names the old tip.
    const pushed = await record(c.dir, c.env, `${P}scratch`, { 'record.json': '{"a":2}' });
    await git(c.dir, ['update-ref', '-d', `${P}scratch`], c.env);
    await learnPushed({ tipCache, objectsDir: join(c.gitDir, 'objects') }, [
      { ref: 'refs/heads/abcd/claims/local/item/a', newOid: pushed, lease: old },
    ]);
    const cached = stores(c, await noCatFile(c.root, c.env)).files;
    expect((await cached.readCached()).map((r) => r.blob?.toString())).toEqual(['{"a":1}']);
    await git(c.dir, ['update-ref', ref, pushed], c.env);
    expect(await cached.readCached()).toEqual(await stores(c).plain.readCached());
  });

  it('reads every tip from git when the kept file is damaged, and skips a ref whose commit is missing as for-each-ref does', async () => {
    const c = await clone();
    await record(c.dir, c.env, `${P}claims/local/item/a`, { 'record.json': '{"a":1}' });
    const { plain, files } = stores(c);
    await files.readCached();
    await writeFile(join(c.gitDir, 'abcd', 'record-tips'), 'abcd-record-tips 1 65536\nnot an entry\n');
    expect(await files.readCached()).toEqual(await plain.readCached());
    await mkdir(join(c.gitDir, P, 'claims/local/item'), { recursive: true });
    await writeFile(join(c.gitDir, P, 'claims/local/item/ghost'), `${'0123456789'.repeat(4)}\n`);
    const want = await plain.readCached();
    expect(want.map((r) => r.ref)).toEqual(['refs/heads/abcd/claims/local/item/a']);
    expect(await files.readCached()).toEqual(want);
  });

  it('reads every tip from git and goes on when the disk refuses the kept file (a folder where it goes)', async () => {
    const c = await clone();
    const tipCache = join(c.gitDir, 'abcd', 'record-tips');
    await mkdir(tipCache, { recursive: true });
    const old = await record(c.dir, c.env, `${P}claims/local/item/a`, { 'record.json': '{"a":1}' });
    const { plain, files } = stores(c);
    const want = await plain.readCached();
    expect(await files.readCached()).toEqual(want);
    expect(await files.readCached()).toEqual(want);
    const tip = await record(c.dir, c.env, `${P}claims/local/item/a`, { 'record.json': '{"a":2}' });
    await expect(
      learnPushed({ tipCache, objectsDir: join(c.gitDir, 'objects') }, [
        { ref: 'refs/heads/abcd/claims/local/item/a', newOid: tip, lease: old },
      ]),
    ).resolves.toBeUndefined();
    expect(await files.readCached()).toEqual(await plain.readCached());
  });
  it("a writer's own tip comes from its folder of the cache alone, loose or packed, and reads no record", async () => {
    const c = await clone();
    const mine = await record(c.dir, c.env, `${P}announce/alice-1`, { 'record.json': '{"a":1}' });
    await record(c.dir, c.env, `${P}announce/bob-2`, { 'record.json': 'not json' });
    await record(c.dir, c.env, `${P}claims/local/item/a`, { 'record.json': '{"a":1}' });
    const { plain, files } = stores(c, await noCatFile(c.root, c.env));
    for (const s of [plain, files]) {
      expect(await s.cachedTip('refs/heads/abcd/announce/alice-1')).toBe(mine);
      expect(await s.cachedTip('refs/heads/abcd/announce/carol-3')).toBeNull();
      // A ref of the same name's start is another ref.
      expect(await s.cachedTip('refs/heads/abcd/announce/alice')).toBeNull();
    }
    await git(c.dir, ['pack-refs', '--all'], c.env);
    expect(await files.cachedTip('refs/heads/abcd/announce/alice-1')).toBe(mine);
    await expect(files.cachedTip('refs/heads/main')).rejects.toThrow(/not a record ref/);
  });
});
