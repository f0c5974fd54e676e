// A model key file a runtime's keyFile names: read only when it is an absolute or ~/ path to a
// regular file of this user's that nobody else may read, and refused by name otherwise.
import { chmod, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/refusals.js';
import { keyFilesOf, readKeyFile } from '../../src/machine/gateway/key-file.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

const KEY = 'lanes.claude.keyFile';

async function refusal(setting: string, o: { home: string; uid?: number }): Promise<UsageError> {
  const e = await readKeyFile(KEY, setting, o).then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(UsageError);
  return e as UsageError;
}

describe('a model key file', () => {
  afterAll(cleanupTemp);

  it('reads the key, trimmed, from an absolute or ~/ path to a 0600 file', async () => {
    const home = await tempDir('key-home');
    await mkdir(join(home, '.keys'));
    await writeFile(join(home, '.keys', 'anthropic'), '  sk-file-key-1\n', { mode: 0o600 });
    expect(await readKeyFile(KEY, '~/.keys/anthropic', { home })).toBe('sk-file-key-1');
    expect(await readKeyFile(KEY, join(home, '.keys', 'anthropic'), { home: '/nowhere' })).toBe('sk-file-key-1');
  });

  it('refuses a relative, missing, empty, several-line, loose, foreign or folder path, naming the reason and never the content', async () => {
    const home = await tempDir('key-home');
    const file = join(home, 'key');
    await writeFile(file, 'sk-loose-key\n', { mode: 0o600 });
    await chmod(file, 0o640);
    const loose = await refusal(file, { home });
    expect(loose.data).toEqual({ key: KEY, path: file, reason: 'too-loose' });
    expect(loose.message).toContain(`chmod 600 ${file}`);
    expect(loose.message).not.toContain('sk-loose-key');
    await chmod(file, 0o600);
    expect((await refusal(file, { home, uid: (process.getuid?.() ?? 0) + 1 })).data).toMatchObject({ reason: 'not-owned' });
    expect((await refusal('keys/anthropic', { home })).data).toEqual({ key: KEY, path: 'keys/anthropic', reason: 'not-absolute' });
    expect((await refusal('~/absent', { home })).data).toEqual({ key: KEY, path: join(home, 'absent'), reason: 'missing' });
    expect((await refusal(home, { home })).data).toMatchObject({ reason: 'not-a-file' });
    await writeFile(join(home, 'empty'), ' \n', { mode: 0o600 });
    expect((await refusal('~/empty', { home })).data).toMatchObject({ reason: 'empty' });
    await writeFile(join(home, 'two'), 'sk-a\nsk-b\n', { mode: 0o600 });
    const two = await refusal('~/two', { home });
    expect(two.data).toMatchObject({ reason: 'several-lines' });
    expect(two.message).not.toContain('sk-a');
  });

  it('names the file and, through a link, the file it leads to: both are hidden', async () => {
    const home = await tempDir('key-home');
    await writeFile(join(home, 'real'), 'sk-x', { mode: 0o600 });
    await symlink(join(home, 'real'), join(home, 'link'));
    expect(keyFilesOf(['~/link', undefined, 'relative'], home)).toEqual([join(home, 'link'), join(home, 'real')]);
  });

  it('names the file alone when it is not there, its link leads nowhere or loops', async () => {
    const home = await tempDir('key-home');
    await symlink(join(home, 'nowhere'), join(home, 'dangling'));
    await symlink(join(home, 'loop-b'), join(home, 'loop'));
    await symlink(join(home, 'loop'), join(home, 'loop-b'));
    expect(keyFilesOf(['~/absent', '~/dangling', '~/loop'], home)).toEqual([
      join(home, 'absent'),
      join(home, 'dangling'),
      join(home, 'loop'),
    ]);
  });
});
