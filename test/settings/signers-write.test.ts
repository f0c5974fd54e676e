// The ssh lines of the allowed-signers list are written where git reads them by every reader
// that verifies a signature; two lanes of one process may do so at the same moment.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { writeSshSigners } from '../../src/repo/settings-trust/verify.js';
import type { AllowedSigners } from '../../src/repo/settings-trust/signers.js';

afterAll(cleanupTemp);

describe('the ssh signers file', () => {
  it('many writes of one process at once all succeed and leave the whole file', async () => {
    const path = join(await tempDir('signers'), 'abcd', 'allowed-signers.ssh');
    const list: AllowedSigners = {
      path: '/x',
      hash: 'h',
      sshLines: ['a@example.com ssh-ed25519 AAAA'],
      gpgFingerprints: new Set(),
      gpgPrincipals: new Map(),
    };
    await Promise.all(Array.from({ length: 16 }, () => writeSshSigners(path, list)));
    expect(await readFile(path, 'utf8')).toBe('a@example.com ssh-ed25519 AAAA\n');
  });
});
