// Temporary file names: distinct within a process and across processes, made without node:crypto.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tempTag } from '../../src/core/temp-name.js';

describe('tempTag', () => {
  it('never repeats in one process and carries the pid, so no two live processes make the same', () => {
    const tags = Array.from({ length: 10_000 }, () => tempTag());
    expect(new Set(tags).size).toBe(tags.length);
    for (const t of tags.slice(0, 10)) expect(t.startsWith(`${process.pid.toString(36)}-`)).toBe(true);
    // Safe in a file name anywhere.
    for (const t of tags) expect(t).toMatch(/^[0-9a-z-]+$/);
  });

  it('differs between two processes even at the same count', () => {
    const first = () =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { tempTag } from '${new URL('../../src/core/temp-name.ts', import.meta.url).href}'; process.stdout.write(tempTag());`,
        ],
        {
          encoding: 'utf8',
        },
      );
    const [a, b] = [first(), first()];
    expect(a).not.toBe(b);
    expect(a.split('-')[1]).toBe('1');
  });
});
