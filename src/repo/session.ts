// This session's id, stable across the verbs it runs.
import { randomBytes } from '../core/builtins.js';
import { join } from 'node:path';
import { UsageError } from '../core/refusals.js';
import { readIfExists, writeAtomic } from './local-files.js';
import { link, mkdir, rm, writeFile } from 'node:fs/promises';

const SESSION = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * This session's id: the one named (ABCD_SESSION), else one id kept per worktree under its
 * git dir (created once, race-free: the first writer wins and everyone reads its id).
 */
export async function sessionId(named: string | undefined, gitDir: string): Promise<string> {
  if (named !== undefined && named !== '') {
    if (!SESSION.test(named)) {
      throw new UsageError(
        // Never echo what was given: it may hold terminal escapes. Say what is wrong with it instead.
        `ABCD_SESSION is not a session id (${named.length} characters${/[^\x20-\x7e]/.test(named) ? ', some of them control or non-ASCII characters' : ''}): ` +
          'use letters, digits, ".", "_", "-" (at most 64).',
        'session',
        { length: named.length },
      );
    }
    return named;
  }
  const path = join(gitDir, 'abcd', 'session');
  const kept = (await readIfExists(path))?.trim();
  if (kept && SESSION.test(kept)) return kept;
  const fresh = `s-${randomBytes(4).toString('hex')}`;
  // Written whole to a temp file, then linked into place: link() fails if another first run
  // won, and nobody ever reads a half-written id.
  await mkdir(join(gitDir, 'abcd'), { recursive: true });
  const tmp = `${path}.${fresh}.tmp`;
  await writeFile(tmp, fresh + '\n');
  try {
    await link(tmp, path);
    return fresh;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const winner = (await readIfExists(path))?.trim();
    if (winner && SESSION.test(winner)) return winner;
    await writeAtomic(path, fresh + '\n');
    return fresh;
  } finally {
    await rm(tmp, { force: true });
  }
}
