// Symbolic refs read from the repository's files, as `git symbolic-ref -q` reads them (one
// level, no recursion): HEAD from the worktree's git dir, others from the common dir. Anything
// but a plain files layout answers undefined: ask git.
import { isObjectId } from '../object-id.js';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unlessMissing, unlessSystemError } from '../../core/best-effort.js';

const TARGET = /^refs\/[A-Za-z0-9_-][A-Za-z0-9._/-]*$/;

/**
 * What `name` points to ("refs/heads/main"), null when it is not a symbolic ref (git's exit 1),
 * undefined when the files cannot say for certain.
 */
export async function readSymref(dirs: { gitDir: string; commonDir: string }, name: string): Promise<string | null | undefined> {
  if (name !== 'HEAD' && !/^refs\/remotes\/[A-Za-z0-9_-][A-Za-z0-9._-]*\/HEAD$/.test(name)) return undefined;
  if (!(await noReftable(dirs.commonDir))) return undefined;
  let text: string;
  try {
    text = await readFile(join(name === 'HEAD' ? dirs.gitDir : dirs.commonDir, name), 'latin1');
  } catch (e) {
    // Absent: no symbolic ref (packed-refs never holds one).
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
  const line = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(line)) return null;
  if (!line.startsWith('ref: ')) return undefined;
  const target = line.slice('ref: '.length);
  return TARGET.test(target) && !target.includes('..') && !target.endsWith('.lock') && !target.includes('//') ? target : undefined;
}

/**
 * `git symbolic-ref --short -q HEAD` for a branch: its short name where no ref git tries
 * before `refs/heads/<name>` could make it ambiguous; undefined otherwise, or where unsure.
 */
export async function currentBranch(dirs: { gitDir: string; commonDir: string }): Promise<string | null | undefined> {
  const target = await readSymref(dirs, 'HEAD');
  if (target === null || target === undefined) return target;
  if (!target.startsWith('refs/heads/')) return undefined;
  const short = target.slice('refs/heads/'.length);
  // git shortens to the name unless `<name>`, `refs/<name>` or `refs/tags/<name>` exists too.
  const earlier = [
    join(dirs.gitDir, short),
    join(dirs.commonDir, short),
    join(dirs.commonDir, 'refs', short),
    join(dirs.commonDir, 'refs', 'tags', short),
  ];
  for (const p of earlier) if (await exists(p)) return undefined;
  // No packed-refs: nothing packed. One that cannot be read might hold either: git decides.
  const packed = await readFile(join(dirs.commonDir, 'packed-refs'), 'latin1').catch(unlessMissing('')).catch(unlessSystemError(undefined));
  if (packed === undefined) return undefined;
  if (packed.includes(` refs/${short}\n`) || packed.includes(` refs/tags/${short}\n`)) return undefined;
  return short;
}

async function exists(p: string): Promise<boolean> {
  try {
    await readFile(p);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    return true;
  }
}

async function noReftable(commonDir: string): Promise<boolean> {
  try {
    await readdir(join(commonDir, 'reftable'));
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * The commit a worktree's detached HEAD holds, read from its files (`<dir>/.git` names its git
 * dir, whose HEAD holds the id); undefined for anything else (HEAD on a branch, another layout): ask git.
 */
export async function readDetachedHead(worktreeDir: string): Promise<string | undefined> {
  try {
    const dotGit = await readFile(join(worktreeDir, '.git'), 'utf8');
    const m = /^gitdir: (\/[^\n]+)\n?$/.exec(dotGit);
    if (!m) return undefined;
    const head = await readFile(join(m[1]!, 'HEAD'), 'latin1');
    const oid = head.endsWith('\n') ? head.slice(0, -1) : head;
    return isObjectId(oid) ? oid : undefined;
  } catch (e) {
    return unlessSystemError(undefined)(e);
  }
}
