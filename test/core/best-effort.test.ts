// The catch handlers of best-effort steps: the failure each expects becomes the fallback, and
// anything else, a bug among it, is thrown on.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unlessMissing, unlessRefusal, unlessRefusalOrSystemError, unlessSystemError } from '../../src/core/best-effort.js';
import { RemoteUnavailable } from '../../src/core/refusals.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('unlessRefusal', () => {
  it('a refusal becomes the fallback', async () => {
    const failed = Promise.reject(new RemoteUnavailable('the remote went away', { outcome: 'unchanged' }));
    await expect(failed.catch(unlessRefusal('fallback'))).resolves.toBe('fallback');
  });

  it('a bug is thrown on', async () => {
    const bug = Promise.reject(new TypeError("Cannot read properties of undefined (reading 'tip')"));
    await expect(bug.catch(unlessRefusal('fallback'))).rejects.toBeInstanceOf(TypeError);
  });
});

describe('unlessMissing', () => {
  it('a file that is not there becomes the fallback', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'abcd-best-effort-'));
    dirs.push(dir);
    await expect(readFile(join(dir, 'gone'), 'utf8').catch(unlessMissing(''))).resolves.toBe('');
    await expect(readFile(join(dir, 'gone', 'below'), 'utf8').catch(unlessMissing(''))).resolves.toBe('');
  });

  it('any other failure is thrown on: a folder read as a file, a bug', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'abcd-best-effort-'));
    dirs.push(dir);
    await expect(readFile(dir, 'utf8').catch(unlessMissing(''))).rejects.toMatchObject({ code: 'EISDIR' });
    await expect(Promise.reject(new TypeError('not a string')).catch(unlessMissing(''))).rejects.toBeInstanceOf(TypeError);
  });
});

describe('unlessSystemError', () => {
  it('a write the file system refuses becomes the fallback: a read-only folder, a vanished one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'abcd-best-effort-'));
    dirs.push(dir);
    const locked = join(dir, 'locked');
    await mkdir(locked, { mode: 0o500 });
    await chmod(locked, 0o500);
    // root writes through a 0500 folder: the refusal is then a missing parent instead.
    const target = process.getuid?.() === 0 ? join(dir, 'gone', 'f') : join(locked, 'f');
    await expect(
      writeFile(target, 'x')
        .then(() => 'written')
        .catch(unlessSystemError('skipped')),
    ).resolves.toBe('skipped');
    await expect(writeFile(join(dir, 'gone', 'f'), 'x').catch(unlessSystemError('skipped'))).resolves.toBe('skipped');
  });

  it('a bug is thrown on, and so is an error that only looks like one', async () => {
    await expect(Promise.reject(new TypeError('not a string')).catch(unlessSystemError(''))).rejects.toBeInstanceOf(TypeError);
    const coded = Object.assign(new Error('made up'), { code: 'EACCES' });
    await expect(Promise.reject(coded).catch(unlessSystemError(''))).rejects.toBe(coded);
  });

  it('with a refusal too: a remote that went away becomes the fallback, a bug does not', async () => {
    const gone = Promise.reject(new RemoteUnavailable('the remote went away', { outcome: 'unchanged' }));
    await expect(gone.catch(unlessRefusalOrSystemError('fallback'))).resolves.toBe('fallback');
    await expect(Promise.reject(new RangeError('bad')).catch(unlessRefusalOrSystemError(''))).rejects.toBeInstanceOf(RangeError);
  });
});
