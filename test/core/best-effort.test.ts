// The catch handlers of best-effort steps: the failure each expects becomes the fallback, and
// anything else, a bug among it, is thrown on.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unlessMissing, unlessRefusal } from '../../src/core/best-effort.js';
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
