// The token refresh lock across processes: a stale lock that cannot be removed is an error the
// caller sees, never a loop that retries it forever without reaching its deadline.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/deps.js';
import { withTokenLock } from '../../src/forges/github/credentials/token-lock.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

// Long enough for a loaded machine to break and retake a lock many times over.
const SPIN_WATCH_MS = 5_000;

describe('token refresh lock', () => {
  it('throws the error of a stale lock it cannot remove instead of retrying it forever', async (ctx) => {
    const dir = await tempDir('token-lock');
    const tokenFile = join(dir, 'token.json');
    const lock = `${tokenFile}.lock`;
    // Another host's lock, written at the epoch: stale by any clock.
    await writeFile(lock, JSON.stringify({ pid: 1, host: 'elsewhere', nonce: 'theirs', at: 0 }));
    // An immutable file is the one a root test can make unlink refuse (EPERM).
    const immutable = await execa('chattr', ['+i', lock], { reject: false });
    if (immutable.exitCode !== 0) {
      console.warn(`token lock test skipped: chattr +i failed (${immutable.stderr.trim()})`);
      return ctx.skip();
    }
    try {
      const outcome = await Promise.race([
        withTokenLock(tokenFile, { clock: systemClock, host: 'here' }, async () => 'ran').catch((e: unknown) => e),
        new Promise((resolve) => setTimeout(() => resolve('still retrying'), SPIN_WATCH_MS)),
      ]);
      expect(outcome).toMatchObject({ code: 'EPERM', path: lock });
    } finally {
      await execa('chattr', ['-i', lock]);
    }
  });
});
