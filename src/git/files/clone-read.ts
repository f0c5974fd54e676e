// Where a clone's git directories are and what its config says, read from its files without a
// git process, for the plain case only: a clone or worktree found by walking up from the
// working directory, owned by this user, config in files git reads without includes. Anything
// else (git's directory variables, a bare repository, reftable or another extension, worktree
// config, a system config this reader cannot place) answers undefined: ask git.
import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
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
    const found = await findGitDir(await realpath(cwd));
    if (!found) return undefined;
    const { gitDir, commonDir } = found;
    const repo = parseConfig(await readFile(join(commonDir, 'config'), 'utf8'));
    if (!repo || !plainRepository(repo)) return undefined;
    const outer = await outerConfig(env);
    if (!outer) return undefined;
    const format = last(repo, 'extensions.objectformat') ?? 'sha1';
    if (format !== 'sha1' && format !== 'sha256') return undefined;
    return { dirs: { gitDir, commonDir, objectsDir: join(commonDir, 'objects'), format }, config: [...outer, ...repo] };
  } catch {
    // Unreadable where git might read it (permissions, a race with a rename): git decides.
    return undefined;
  }
}

/** The git dir of the clone `dir` is in, walking up as git does, for a plain layout only. */
async function findGitDir(dir: string): Promise<{ gitDir: string; commonDir: string } | undefined> {
  const uid = process.getuid?.();
  const dev = (await stat(dir)).dev;
  for (let d = dir; ; d = dirname(d)) {
    const dot = join(d, '.git');
    const s = await stat(dot).catch(() => undefined);
    if (s) {
      // git checks the owner (safe.directory): another owner's clone is git's to judge.
      if ((await stat(d)).uid !== uid || s.uid !== uid) return undefined;
      const gitDir = s.isDirectory() ? dot : s.isFile() ? await gitDirOfFile(dot) : undefined;
      if (!gitDir || !(await isGitDir(gitDir))) return undefined;
      const common = await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => undefined);
      const commonDir = common === undefined ? gitDir : resolve(gitDir, common.trim());
      if ((await stat(commonDir)).uid !== uid) return undefined;
      return { gitDir, commonDir: await realpath(commonDir) };
    }
    // Inside a git dir or a bare repository, or across a file system's edge: git knows the rules.
    if (await isGitDir(d)) return undefined;
    if (d === dirname(d) || (await stat(dirname(d))).dev !== dev) return undefined;
  }
}

/** A `.git` file's `gitdir: <path>` (a worktree, a submodule), resolved beside the file. */
async function gitDirOfFile(file: string): Promise<string | undefined> {
  const text = (await readFile(file, 'utf8')).replace(/\r?\n$/, '');
  if (!text.startsWith('gitdir: ') || text.includes('\n')) return undefined;
  const p = text.slice('gitdir: '.length);
  return realpath(isAbsolute(p) ? p : resolve(dirname(file), p));
}

/** git's own test for a git dir: a HEAD, an objects dir and a refs dir (in it or its common dir). */
async function isGitDir(d: string): Promise<boolean> {
  const head = await stat(join(d, 'HEAD')).catch(() => undefined);
  if (!head?.isFile()) return false;
  const common = await readFile(join(d, 'commondir'), 'utf8').catch(() => undefined);
  const c = common === undefined ? d : resolve(d, common.trim());
  const [objects, refs] = await Promise.all([
    stat(join(c, 'objects')).catch(() => undefined),
    stat(join(c, 'refs')).catch(() => undefined),
  ]);
  return !!objects?.isDirectory() && !!refs?.isDirectory();
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
async function outerConfig(env: Env): Promise<ConfigEntry[] | undefined> {
  const files: string[] = [];
  const noSystem = boolOf(env.GIT_CONFIG_NOSYSTEM);
  if (noSystem === undefined) return undefined;
  if (!noSystem) {
    // Where this reader knows the system config to be: git as the distributions build it.
    if (!(await distributionGit(env.PATH))) return undefined;
    files.push('/etc/gitconfig');
  }
  const home = env.HOME;
  const xdg = env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'git', 'config') : home ? join(home, '.config', 'git', 'config') : undefined;
  if (xdg) files.push(xdg);
  if (home) files.push(join(home, '.gitconfig'));
  const out: ConfigEntry[] = [];
  for (const f of files) {
    const text = await readFile(f, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return '';
      throw e;
    });
    const entries = parseConfig(text);
    if (!entries) return undefined;
    out.push(...entries);
  }
  return out;
}

/** Whether the first git on PATH is /usr/bin/git (its system config is /etc/gitconfig). */
async function distributionGit(path: string | undefined): Promise<boolean> {
  for (const dir of (path ?? '').split(':')) {
    if (!dir || !isAbsolute(dir)) return false;
    const s = await stat(join(dir, 'git')).catch(() => undefined);
    if (!s?.isFile()) continue;
    return (await realpath(join(dir, 'git'))) === '/usr/bin/git';
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
