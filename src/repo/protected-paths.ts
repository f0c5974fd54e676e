// Which paths of a change are the repository's own rules: what every later session, check and
// lane runs under (abcd's config and items, CI, agent settings and instructions, git's own
// attribute and submodule files). A lane's change to one of them waits for the person
// (ADR 0103). Pure: the caller gives the paths the change touches, the person's extra globs
// (the signed setting `protected-paths`) and the one path it may touch freely (its item's
// done mark), so the lane, `abcd review` and the tests share one rule.

import { PROTECTED_GLOB } from '../records/settings.js';

/** Always protected, whatever the settings say. A pattern ending in `/**` covers the folder. */
export const BUILT_IN_PROTECTED: readonly string[] = [
  '.abcd/**',
  '.github/**',
  '.gitlab-ci.yml',
  '.claude/**',
  '.codex/**',
  '.mcp.json',
  'AGENTS.md',
  'CLAUDE.md',
  '.gitmodules',
  '.gitattributes',
  '.husky/**',
];

/** Whether `glob` is one the setting may hold (relative, no `..`, no spaces, commas or control characters). */
export function isProtectedGlob(glob: string): boolean {
  return PROTECTED_GLOB.test(glob);
}

/**
 * Whether `path` (repository-relative, `/`-separated) matches `glob`: `*` is any run of
 * characters but `/`, `?` one such character, `**` any number of whole segments (`a/**` is
 * everything under `a` and `a` itself: a symlink there would lead into another folder, `**\/x`
 * an `x` at any depth). Everything else is literal, in any case: on macOS and Windows
 * `.Claude/settings.json` is the file Claude Code reads.
 */
export function matchesGlob(glob: string, path: string): boolean {
  return globRegExp(glob).test(path);
}

const compiled = new Map<string, RegExp>();

function globRegExp(glob: string): RegExp {
  let re = compiled.get(glob);
  if (re) return re;
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      const atStart = i === 0 || glob[i - 1] === '/';
      const atEnd = i + 2 === glob.length;
      const slashAfter = glob[i + 2] === '/';
      if (atStart && atEnd) out += '.*';
      else if (atStart && slashAfter) {
        out += '(?:.*/)?';
        i++; // the slash is part of the optional prefix
      } else out += '[^/]*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // `a/**` also matches `a`: a symlink named `a` is a change to what `a/...` reads.
  if (glob.endsWith('/**')) out = `${out.slice(0, -'/.*'.length)}(?:/.*)?`;
  re = new RegExp(`^${out}$`, 'i');
  compiled.set(glob, re);
  return re;
}

/**
 * The paths of `changed` that are protected: matched by a built-in pattern or one of `extra`,
 * except `exempt` (the item's own done mark, which the caller found to be only that). Sorted,
 * each once: what the answer names and the person reviews first.
 */
export function protectedPathsOf(changed: Iterable<string>, o: { extra?: readonly string[]; exempt?: string } = {}): string[] {
  const globs = [...BUILT_IN_PROTECTED, ...(o.extra ?? []).filter(isProtectedGlob)];
  const out = new Set<string>();
  for (const p of changed) {
    if (p === o.exempt) continue;
    if (globs.some((g) => matchesGlob(g, p))) out.add(p);
  }
  return [...out].sort();
}
