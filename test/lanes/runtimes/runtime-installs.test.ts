// The CLI versions a lane names when a runtime's CLI is missing, and the generated CI jobs
// install, are the ones abcd's own suite runs: its devDependencies.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNTIMES } from '../../../src/lanes/runtimes/index.js';

describe('built-in runtimes install at the version abcd is tested with', () => {
  it('each pinned CLI version is the devDependency in package.json', async () => {
    const pkg = JSON.parse(await readFile(join(import.meta.dirname, '../../../package.json'), 'utf8'));
    for (const { install } of Object.values(RUNTIMES)) {
      if (!install) continue;
      expect(pkg.devDependencies[install.package], install.package).toBe(install.version);
      expect(install.command).toBe(`npm install --global ${install.package}@${install.version}`);
    }
  });
});
