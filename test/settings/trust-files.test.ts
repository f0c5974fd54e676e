// The settings trust's own files under the git dir: a missing or torn one is read as empty
// (verified or worked out again), and one the disk will not read as a file is thrown on.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTrustCache } from '../../src/repo/settings-trust/cache.js';
import { deliveredPath, readDelivered, rememberDelivered } from '../../src/repo/settings-trust/delivered.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

const A = 'a'.repeat(40);

describe("the settings trust's files", () => {
  it('the verdict cache: missing or torn is an empty cache, a kept one is read back', async () => {
    const dir = await tempDir('trust-files');
    const path = join(dir, 'settings-trust.json');
    expect(await readTrustCache(path, 'list-1')).toEqual({ list: 'list-1', verdicts: {} });
    await writeFile(path, '{"list":"list-1","verdicts":');
    expect(await readTrustCache(path, 'list-1')).toEqual({ list: 'list-1', verdicts: {} });
    await writeFile(path, 'null');
    expect(await readTrustCache(path, 'list-1')).toEqual({ list: 'list-1', verdicts: {} });
    await writeFile(path, JSON.stringify({ list: 'list-0', verdicts: { x: 1 }, seen: { [A]: 5 } }));
    expect(await readTrustCache(path, 'list-1')).toEqual({ list: 'list-1', verdicts: {}, seen: { [A]: 5 } });
    await mkdir(join(dir, 'folder.json'));
    await expect(readTrustCache(join(dir, 'folder.json'), 'list-1')).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('the delivered requests: missing or torn remembers nothing, a remembered commit is read back', async () => {
    const commonDir = await tempDir('trust-files');
    expect(await readDelivered(commonDir)).toEqual(new Set());
    await rememberDelivered(commonDir, [A]);
    expect(await readDelivered(commonDir)).toEqual(new Set([A]));
    await writeFile(deliveredPath(commonDir), `["${A}`);
    expect(await readDelivered(commonDir)).toEqual(new Set());
    await rememberDelivered(commonDir, [A]);
    expect(await readDelivered(commonDir)).toEqual(new Set([A]));
  });
});
