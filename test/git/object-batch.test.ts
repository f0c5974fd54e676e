// One `cat-file --batch-command` process answers the sizes, then the contents the caller picks
// from them; a git without --batch-command is read the old way with the same answers.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Git } from '../../src/git/git.js';
import { infoThenContents, type ObjectInfo } from '../../src/git/object-batch.js';
import { readRecords } from '../../src/records/store-blobs.js';
import { MAX_RECORD_BYTES } from '../../src/records/envelope.js';
import { cleanupTemp, git, isolatedEnv, QUIET_CONFIG, tempDir } from '../harness/git-env.js';

async function repoWith(files: Record<string, string>) {
  const root = await tempDir('object-batch');
  const env = isolatedEnv(root);
  const dir = join(root, 'clone');
  await git(root, ['init', '-q', dir], env);
  for (const [k, v] of QUIET_CONFIG) await git(dir, ['config', k, v], env);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  await git(dir, ['add', '.'], env);
  await git(dir, ['-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '-m', 'files'], env);
  const tip = await git(dir, ['rev-parse', 'HEAD'], env);
  return { root, dir, env, tip };
}

/** A git on PATH that has no --batch-command, as before 2.36, and runs the real one otherwise. */
async function oldGit(root: string, env: Record<string, string>): Promise<Record<string, string>> {
  const bin = join(root, 'old-git');
  await mkdir(bin, { recursive: true });
  const shim = join(bin, 'git');
  await writeFile(
    shim,
    `#!/bin/sh\nfor a in "$@"; do [ "$a" = --batch-command ] && { echo "error: unknown option \\\`batch-command'" >&2; exit 129; }; done\nexec /usr/bin/git "$@"\n`,
  );
  await chmod(shim, 0o755);
  return { ...env, PATH: `${bin}:${env.PATH ?? '/usr/bin:/bin'}` };
}

describe('infoThenContents', () => {
  afterAll(cleanupTemp);

  it('sizes every spec, then reads only what the caller picked, in its order, in one process', async () => {
    const { dir, env, tip } = await repoWith({ 'a.txt': 'alpha\n', 'b.txt': 'bravo, longer\n' });
    let seen: (ObjectInfo | undefined)[] = [];
    const r = await infoThenContents(
      new Git(dir, env),
      [`${tip}:a.txt`, `${tip}:missing.txt`, `${tip}:b.txt`, `${tip}^{tree}`],
      (infos) => {
        seen = infos;
        return [infos[2]!.oid, infos[0]!.oid];
      },
    );
    expect(r).toBeDefined();
    expect(seen.map((i) => i && { type: i.type, size: i.size })).toEqual([
      { type: 'blob', size: 6 },
      undefined,
      { type: 'blob', size: 14 },
      { type: 'tree', size: expect.any(Number) },
    ]);
    expect(r!.infos).toEqual(seen);
    expect(r!.contents.map((b) => b.toString())).toEqual(['bravo, longer\n', 'alpha\n']);
  });

  it('reads nothing when nothing is picked, and answers no specs at all', async () => {
    const { dir, env, tip } = await repoWith({ 'a.txt': 'alpha\n' });
    const none = await infoThenContents(new Git(dir, env), [`${tip}:a.txt`], () => []);
    expect(none?.contents).toEqual([]);
    const empty = await infoThenContents(new Git(dir, env), [], () => []);
    expect(empty).toEqual({ infos: [], contents: [] });
  });

  it('says so (undefined) on a git without --batch-command', async () => {
    const { root, dir, env, tip } = await repoWith({ 'a.txt': 'alpha\n' });
    const r = await infoThenContents(new Git(dir, await oldGit(root, env)), [`${tip}:a.txt`], () => []);
    expect(r).toBeUndefined();
  });
});

describe('readRecords', () => {
  afterAll(cleanupTemp);

  it('gives the same records, oversized and extra files included, with and without --batch-command', async () => {
    const big = 'x'.repeat(MAX_RECORD_BYTES + 1);
    const one = await repoWith({ 'record.json': '{"abcd":"claim"}\n' });
    const two = await repoWith({ 'record.json': big });
    const three = await repoWith({ 'record.json': '{}\n', 'extra.txt': 'more\n' });
    const four = await repoWith({ 'other.json': '{}\n' });
    // Every tip's objects in one clone, as a record cache holds them.
    for (const r of [two, three, four]) await git(one.dir, ['fetch', '-q', r.dir, `${r.tip}:refs/t/${r.tip}`], one.env);
    const refs = [one, two, three, four].map((r, i) => ({ ref: `refs/heads/abcd/claims/local/item/r${i}`, tip: r.tip }));
    const now = await readRecords(new Git(one.dir, one.env), refs);
    const before = await readRecords(new Git(one.dir, await oldGit(one.root, one.env)), refs);
    expect(before).toEqual(now);
    expect(now[0]!.blob?.toString()).toBe('{"abcd":"claim"}\n');
    expect(now[1]).toEqual({ ref: refs[1]!.ref, tip: two.tip, oversized: MAX_RECORD_BYTES + 1 });
    expect(now[2]).toMatchObject({ extraFiles: true, blob: Buffer.from('{}\n') });
    expect(now[3]).toEqual({ ref: refs[3]!.ref, tip: four.tip });
  });
});
