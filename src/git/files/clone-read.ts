// Where a clone's git directories are and what its config says, read from its files without a
// git process, for the plain case only: a clone or worktree found by walking up from the
// working directory, owned by this user, config in files git reads without includes. Anything
// else (git's directory variables, a bare repository, reftable or another extension, worktree
// config, a system config this reader cannot place) answers undefined: ask git.
import { readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { unlessSystemError } from '../../core/best-effort.js';
import type { Env } from '../../core/deps.js';
import { parseConfig, type ConfigEntry } from './config-parse.js';

/** What `git rev-parse --absolute-git-dir --git-common-dir --git-path objects --show-object-format` answers. */
export interface CloneDirs {
  gitDir: string;
  commonDir: string;
  objectsDir: string;
  format: 'sha1' | 'sha256';
}

// Variables that change where git looks or what config it reads: with any of them set, git answers.
const HARMLESS_GIT_VARS =
  /^GIT_(?:AUTHOR_|COMMITTER_|TRACE|TERMINAL_PROMPT$|CONFIG_NOSYSTEM$|SSH|ASKPASS$|EDITOR$|PAGER$|SEQUENCE_EDITOR$|SSL_|HTTP_|PROTOCOL_FROM_USER$|ALLOW_PROTOCOL$)/;

/**
 * The clone's directories and every config entry git would list for it, in git's order
 * (system, global, repository); undefined: ask git.
 */
export async function readCloneFromFiles(cwd: string, env: Env): Promise<{ dirs: CloneDirs; config: ConfigEntry[] } | undefined> {
  for (const k of Object.keys(env)) if (k.startsWith('GIT_') && env[k] !== undefined && !HARMLESS_GIT_VARS.test(k)) return undefined;
  if (process.platform !== 'linux' || typeof process.getuid !== 'function') return undefined;
  try {
    const found = findGitDir(realpathSync(cwd));
    if (!found) return undefined;
    const { gitDir, commonDir } = found;
    const repo = parseConfig(readFileSync(join(commonDir, 'config'), 'utf8'));
    if (!repo || !plainRepository(repo)) return undefined;
    const outer = outerConfig(env);
    if (!outer) return undefined;
    const format = last(repo, 'extensions.objectformat') ?? 'sha1';
    if (format !== 'sha1' && format !== 'sha256') return undefined;
    return { dirs: { gitDir, commonDir, objectsDir: join(commonDir, 'objects'), format }, config: [...outer, ...repo] };
  } catch (e) {
    // Unreadable where git might read it (permissions, a race with a rename): git decides.
    // A bug is thrown on.
    return unlessSystemError(undefined)(e);
  }
}

/** The git dir of the clone `dir` is in, walking up as git does, for a plain layout only. */
function findGitDir(dir: string): { gitDir: string; commonDir: string } | undefined {
  const uid = process.getuid?.();
  const dev = statSync(dir).dev;
  for (let d = dir; ; d = dirname(d)) {
    const dot = join(d, '.git');
    const s = statOf(dot);
    if (s) {
      // git checks the owner (safe.directory): another owner's clone is git's to judge.
      if (statSync(d).uid !== uid || s.uid !== uid) return undefined;
      const gitDir = s.isDirectory() ? dot : s.isFile() ? gitDirOfFile(dot) : undefined;
      if (!gitDir || !isGitDir(gitDir)) return undefined;
      const common = textOf(join(gitDir, 'commondir'));
      const commonDir = common === undefined ? gitDir : resolve(gitDir, common.trim());
      if (statSync(commonDir).uid !== uid) return undefined;
      return { gitDir, commonDir: realpathSync(commonDir) };
    }
    // Inside a git dir or a bare repository, or across a file system's edge: git knows the rules.
    if (isGitDir(d)) return undefined;
    if (d === dirname(d) || statSync(dirname(d)).dev !== dev) return undefined;
  }
}

function statOf(p: string): Stats | undefined {
  return statSync(p, { throwIfNoEntry: false });
}

/** A file's text; undefined when it is absent. */
function textOf(p: string): string | undefined {
  if (!statOf(p)) return undefined;
  return readFileSync(p, 'utf8');
}

/** A `.git` file's `gitdir: <path>` (a worktree, a submodule), resolved beside the file. */
function gitDirOfFile(file: string): string | undefined {
  const text = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  if (!text.startsWith('gitdir: ') || text.includes('\n')) return undefined;
  const p = text.slice('gitdir: '.length);
  return realpathSync(isAbsolute(p) ? p : resolve(dirname(file), p));
}

/** git's own test for a git dir: a HEAD, an objects dir and a refs dir (in it or its common dir). */
function isGitDir(d: string): boolean {
  if (!statOf(join(d, 'HEAD'))?.isFile()) return false;
  const common = textOf(join(d, 'commondir'));
  const c = common === undefined ? d : resolve(d, common.trim());
  return !!statOf(join(c, 'objects'))?.isDirectory() && !!statOf(join(c, 'refs'))?.isDirectory();
}

/** A repository config git reads as plain files: version 0 or 1 with no extension but the object format. */
function plainRepository(repo: ConfigEntry[]): boolean {
  const version = last(repo, 'core.repositoryformatversion') ?? '0';
  if (version !== '0' && version !== '1') return false;
  if (repo.some((e) => e.key.startsWith('extensions.') && e.key !== 'extensions.objectformat')) return false;
  const bare = last(repo, 'core.bare');
  return (bare === undefined || bare === 'false') && last(repo, 'core.worktree') === undefined;
}

/** The system and global config git reads before the repository's; undefined: git must say. */
function outerConfig(env: Env): ConfigEntry[] | undefined {
  const files: string[] = [];
  const noSystem = boolOf(env.GIT_CONFIG_NOSYSTEM);
  if (noSystem === undefined) return undefined;
  if (!noSystem) {
    // Where this reader knows the system config to be: git as the distributions build it.
    if (!distributionGit(env.PATH)) return undefined;
    files.push('/etc/gitconfig');
  }
  const home = env.HOME;
  const xdg = env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'git', 'config') : home ? join(home, '.config', 'git', 'config') : undefined;
  if (xdg) files.push(xdg);
  if (home) files.push(join(home, '.gitconfig'));
  const out: ConfigEntry[] = [];
  for (const f of files) {
    const s = statOf(f);
    if (!s) continue;
    const entries = parseConfig(readFileSync(f, 'utf8'));
    if (!entries) return undefined;
    out.push(...entries);
  }
  return out;
}

/** Whether the first git on PATH is /usr/bin/git (its system config is /etc/gitconfig). */
function distributionGit(path: string | undefined): boolean {
  for (const dir of (path ?? '').split(':')) {
    if (!dir || !isAbsolute(dir)) return false;
    if (!statOf(join(dir, 'git'))?.isFile()) continue;
    return realpathSync(join(dir, 'git')) === '/usr/bin/git';
  }
  return false;
}

/** An environment boolean as git reads it; undefined: a spelling left to git. */
function boolOf(v: string | undefined): boolean | undefined {
  if (v === undefined || /^(?:0|false|no|off)$/i.test(v)) return false;
  return /^(?:1|true|yes|on)$/i.test(v) ? true : undefined;
}

/** The value git's `config --get` answers for `key` in these entries (the last one). */
export function last(entries: readonly ConfigEntry[], key: string): string | undefined {
  let v: string | undefined;
  for (const e of entries) if (e.key === key) v = e.value;
  return v;
}
