// The program a sandboxed command starts must be visible inside it. Installers put agents under
// HOME (Claude Code's, pipx, nvm) or /tmp, which the sandbox hides: abcd finds the command's
// first word on PATH and its interpreter (the node of a `#!/usr/bin/env node` script) before the
// sandbox starts, and exposes their install folders read-only. It never guesses a partial view:
// a program whose folder is HOME itself, holds a secret place or sits inside one is not exposed,
// and the caller refuses, naming it.
import { constants, type Stats } from 'node:fs';
import { access, lstat, open, readlink, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { unlessSystemError } from '../../core/best-effort.js';
import type { Bind } from './bwrap.js';
import { isInside } from './places.js';

export interface ProgramView {
  binds: Bind[];
  symlinks: Array<{ path: string; target: string }>;
  /** What could not be exposed: the file and why. */
  hidden?: { word: string; path: string; why: 'not-found' | 'hidden-folder' };
}

export interface ProgramPlaces {
  /** Folders the sandbox hides (HOME, /tmp, the config folders...). */
  hidden: readonly string[];
  /** Folders never exposed, even read-only (abcd's config, ~/.ssh, gh's and git's credentials). */
  secret: readonly string[];
  /** Read-only binds the person configured (lanes.bind): what they cover is visible already. */
  bound: readonly string[];
}

// Shell words that are no program on PATH (keywords and builtins): nothing to find for them.
const SHELL_WORDS = new Set(
  'if then else elif fi for while until do done case esac in function select time { } ! [[ ]] . : cd export set unset exit return source eval exec trap read shift alias umask wait command builtin local let type ulimit getopts hash jobs declare typeset readonly times shopt break continue echo printf true false test [ pwd kill fg bg disown enable help history logout mapfile readarray pushd popd dirs caller compgen complete compopt bind fc suspend'.split(
    ' ',
  ),
);
// How many symlinks a chain may have (the kernel's own limit).
const MAX_LINKS = 40;
// The first line of a script: enough for any interpreter line.
const SHEBANG_BYTES = 256;
// Characters that end a word where the shell sees them unquoted.
const WORD_END = /[\s;&|<>()]/;
// Unquoted, these make the word the shell's to expand (a variable, a command, a glob, HOME).
const EXPANDS = /[$`*?[~]/;

/** One shell word read from `text` at `at`: its text as the program sees it, and whether the shell would expand it. */
interface Word {
  text: string;
  end: number;
  /** Expansions (a variable, a command substitution, a glob): the word is not known before the shell runs. */
  expands: boolean;
  /** NAME=value, the prefix that sets a variable for the command. */
  assignment: boolean;
  quoted: boolean;
}

function readWord(text: string, at: number): Word | undefined {
  let i = at;
  let out = '';
  let expands = false;
  let quoted = false;
  while (i < text.length && !WORD_END.test(text[i]!)) {
    const c = text[i]!;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) return undefined;
      out += text.slice(i + 1, close);
      quoted = true;
      i = close + 1;
    } else if (c === '"') {
      quoted = true;
      i++;
      for (; i < text.length && text[i] !== '"'; i++) {
        // Inside double quotes a backslash escapes only these; elsewhere it stays.
        if (text[i] === '\\' && i + 1 < text.length && '$`"\\\n'.includes(text[i + 1]!)) i++;
        else if (text[i] === '$' || text[i] === '`') expands = true;
        out += text[i];
      }
      if (i >= text.length) return undefined;
      i++;
    } else if (c === '\\') {
      if (i + 1 >= text.length) return undefined;
      out += text[i + 1];
      quoted = true;
      i += 2;
    } else {
      if (EXPANDS.test(c) && !(c === '~' && out !== '')) expands = true;
      out += c;
      i++;
    }
  }
  if (i === at) return undefined;
  const raw = text.slice(at, i);
  return { text: out, end: i, expands, quoted, assignment: /^[A-Za-z_][A-Za-z0-9_]*=/.test(raw) };
}

/**
 * The program a shell command starts, as the shell reads its first word: quotes and backslashes
 * removed, after NAME=value prefixes. Undefined when the command starts with something that is
 * no program on PATH (a keyword, a builtin, a subshell, a redirection) or a word only the shell
 * can work out (a variable, a glob): abcd then looks for nothing.
 */
export function firstWord(command: string): string | undefined {
  let at = 0;
  for (;;) {
    while (at < command.length && /\s/.test(command[at]!)) at++;
    const w = readWord(command, at);
    if (!w) return undefined;
    if (w.assignment) {
      at = w.end;
      continue;
    }
    if (w.expands || w.text === '' || (!w.quoted && SHELL_WORDS.has(w.text)) || w.text.startsWith('#')) return undefined;
    // `name() { ...; }`: the command defines a function first; what it runs is the shell's to say.
    if (/^\s*\(/.test(command.slice(w.end))) return undefined;
    return w.text;
  }
}

/** Finds `command`'s program (and its interpreter) on PATH, and what the sandbox must show of them. */
export async function programView(command: string, o: { path: string; cwd: string; places: ProgramPlaces }): Promise<ProgramView> {
  const view: ProgramView = { binds: [], symlinks: [] };
  const word = firstWord(command);
  if (!word) return view;
  // A path relative to the worktree is in the worktree: visible as it is.
  if (word.includes('/') && !isAbsolute(word)) return view;
  const found = word.includes('/') ? ((await executable(word)) ? word : undefined) : await onPath(word, o.path);
  // A PATH with a relative entry finds programs abcd cannot tell apart from the worktree's.
  if (!found) return o.path.split(':').every(isAbsolute) ? { ...view, hidden: { word, path: word, why: 'not-found' } } : view;
  const real = await expose(found, word, view, o.places);
  if (view.hidden || !real) return view;
  const interpreter = await interpreterOf(real, o.path);
  if (interpreter) await expose(interpreter.path, interpreter.word, view, o.places);
  return view;
}

/** Follows `path`'s symlinks, recreating the hidden ones, and binds the real file's folder when hidden. */
async function expose(path: string, word: string, view: ProgramView, places: ProgramPlaces): Promise<string | undefined> {
  const hidden = (p: string) => places.hidden.some((h) => isInside(p, h)) && !places.bound.some((b) => isInside(p, b));
  let p = path;
  for (let n = 0; n < MAX_LINKS; n++) {
    // A link in the chain that leads nowhere (or through a folder this user cannot search): nothing to expose.
    const st: Stats | undefined = await lstat(p).catch(unlessSystemError(undefined));
    if (!st) return undefined;
    if (!st.isSymbolicLink()) break;
    const target = await readlink(p);
    if (hidden(p)) view.symlinks.push({ path: p, target });
    p = resolve(dirname(p), target);
  }
  if (!hidden(p)) return p;
  const folder = dirname(p);
  const tooMuch = places.secret.some((s) => isInside(folder, s)) || places.hidden.some((h) => isInside(h, folder));
  if (tooMuch) {
    view.hidden = { word, path: p, why: 'hidden-folder' };
    return undefined;
  }
  if (!view.binds.some((b) => b.path === folder)) view.binds.push({ path: folder });
  return p;
}

async function interpreterOf(file: string, path: string): Promise<{ word: string; path: string } | undefined> {
  // A program this user may run but not read (mode 0711) has no interpreter line to read.
  const fh = await open(file, 'r').catch(unlessSystemError(undefined));
  if (!fh) return undefined;
  const buf = Buffer.alloc(SHEBANG_BYTES);
  const { bytesRead } = await fh.read(buf, 0, SHEBANG_BYTES, 0).finally(() => fh.close());
  const line = buf.subarray(0, bytesRead).toString('latin1').split('\n')[0]!;
  if (!line.startsWith('#!')) return undefined;
  const [interp, ...args] = line.slice(2).trim().split(/\s+/);
  if (!interp || !isAbsolute(interp)) return undefined;
  if (!interp.endsWith('/env')) return { word: interp, path: interp };
  // `env [-S] [NAME=value...] program`: the program is looked up on PATH.
  const name = args.find((a) => !a.startsWith('-') && !a.includes('='));
  if (!name) return undefined;
  const found = await onPath(name, path);
  return found ? { word: name, path: found } : undefined;
}

async function onPath(word: string, path: string): Promise<string | undefined> {
  for (const dir of path.split(':')) {
    if (!isAbsolute(dir)) continue;
    const p = join(dir, word);
    if (await executable(p)) return p;
  }
  return undefined;
}

async function executable(p: string): Promise<boolean> {
  try {
    await access(p, constants.X_OK);
    // Through its links: a folder (or a link to one) is no program, as the shell passes over it.
    return (await stat(p)).isFile();
  } catch (e) {
    // Not there, or not executable by this user: the shell would pass over it too.
    return unlessSystemError(false)(e);
  }
}
