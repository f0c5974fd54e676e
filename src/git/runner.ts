// The one place git runs: an argument list bound to a directory, with a timeout, the C locale and
// no prompts. Private to src/git: everything outside asks the typed client (git.ts) instead.
import { definedEnv, type Env } from '../core/deps.js';
import { GitFailed } from '../core/refusals.js';
import { sanitizeLine, sanitizeText } from '../core/sanitize.js';
import { spawnProcess, type SpawnOptions } from '../core/spawn.js';

export interface RunResult {
  exitCode: number;
  stdout: Buffer;
  stderr: string;
  /** The process was killed at its timeout. */
  timedOut: boolean;
}

export interface RunOptions {
  input?: string | Buffer;
  /** Kill git after this long; every git call abcd makes has one, so every wait ends. */
  timeoutMs?: number;
  /** Extra environment for this one invocation (the credential channel's config). */
  env?: Record<string, string>;
  /** Extra file descriptors from fd 3 on, e.g. a pipe carrying a token. */
  extraFds?: ReadonlyArray<'pipe' | number>;
  /** A conversation on stdin instead of `input` (spawn.ts): git's answers arrive on `onStdout`. */
  feed?: SpawnOptions['feed'];
  onStdout?: SpawnOptions['onStdout'];
  /** Ends git (and what it started) when aborted: a call nobody waits for any more. */
  signal?: AbortSignal;
}

/** The key under which a client holds its runner: only src/git imports it (the layer test holds that). */
export const RUNNER = Symbol('git runner');

/** The runner of a client (or of anything else holding one under RUNNER). */
export function runnerOf(owner: { readonly [RUNNER]: GitRunner }): GitRunner {
  return owner[RUNNER];
}

// A local git call that takes longer than this is stuck, not slow.
const DEFAULT_LOCAL_TIMEOUT_MS = 60_000;

/** What a call may add: its own environment (GIT_DIR, GIT_INDEX_FILE, an identity) or timeout. */
export type CallOptions = Pick<RunOptions, 'env' | 'timeoutMs' | 'signal'>;

/** How a git call that was allowed to fail failed: its exit code and what it said. */
export type GitFailure = Pick<RunResult, 'exitCode' | 'stderr' | 'timedOut'>;

/**
 * Flags for every commit, merge, rebase and checkout abcd makes itself: no signing prompt, and
 * no hook of the clone's runs (a hook is the clone's code, not abcd's).
 */
export const QUIET = ['-c', 'commit.gpgsign=false', '-c', 'core.hooksPath=/dev/null'] as const;

/**
 * The only code that runs git: one instance bound to a directory, `-C dir` on every call,
 * never chdir (gh's git client). Never throws on git's exit status; callers decide.
 */
export class GitRunner {
  private readonly env: Record<string, string>;

  constructor(
    readonly dir: string,
    env: Env,
  ) {
    this.env = gitEnvironment(env);
  }

  async run(args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
    const r = await spawnProcess('git', ['-C', this.dir, ...args], {
      env: { ...this.env, ...opts.env },
      ...(opts.input !== undefined ? { input: opts.input } : {}),
      ...(opts.extraFds ? { extraFds: opts.extraFds } : {}),
      ...(opts.feed ? { feed: opts.feed } : {}),
      ...(opts.onStdout ? { onStdout: opts.onStdout } : {}),
      // Its own process group, so the timeout ends git's helpers and hooks too (bounded.ts).
      group: true,
      timeoutMs: opts.timeoutMs ?? DEFAULT_LOCAL_TIMEOUT_MS,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const timedOut = r.fired === 'timeout';
    return {
      exitCode: timedOut ? 124 : (r.exitCode ?? 1),
      stdout: r.stdout,
      stderr: r.startError ? `git could not start: ${r.startError.message}` : r.stderr.toString(),
      timedOut,
    };
  }

  /** The GitFailed (exit 9) for a call of this runner that had to succeed. */
  failed(args: readonly string[], r: RunResult): GitFailed {
    return gitFailed(this.dir, args, r);
  }

  /** Runs a local command that must succeed; returns trimmed stdout. */
  async must(args: readonly string[], opts: RunOptions = {}): Promise<string> {
    const r = await this.run(args, opts);
    if (r.exitCode !== 0) throw gitFailed(this.dir, args, r);
    return r.stdout.toString().trim();
  }
}

// git's stderr for one failed command is a few lines; more is noise (a hook's whole output).
const MAX_STDERR_CHARS = 4000;
const MAX_ARG_CHARS = 200;

/** A local git command that had to succeed and did not: the clone or git needs a person (exit 9). */
export function gitFailed(dir: string, args: readonly string[], r: RunResult): GitFailed {
  const shown = args.map((a) => sanitizeLine(a, MAX_ARG_CHARS));
  const stderr = sanitizeText(r.stderr.trim()).slice(0, MAX_STDERR_CHARS);
  const said = stderr.split('\n').filter((l) => l.trim() !== '');
  const why = r.timedOut ? 'was killed at its timeout' : `failed (exit ${r.exitCode})`;
  const detail = said.length ? `: ${sanitizeLine(said.slice(-2).join(' / '), 400)}` : '';
  return new GitFailed(
    `git ${shown.join(' ')} ${why} in ${sanitizeLine(dir)}${detail}. ` +
      'This is git or the clone failing, not abcd: check it with "git fsck" and "git status" there ' +
      '(a shallow clone needs "git fetch --unshallow"), or make a fresh clone.',
    { args: shown, exitCode: r.exitCode, stderr, dir, timedOut: r.timedOut },
  );
}

/**
 * Every git call runs non-interactively and in the C locale, so its output can be parsed.
 * git runs in a new session (detached), with no controlling terminal: ssh cannot prompt for a
 * passphrase or a host key and fails at once, as BatchMode would, without abcd overriding the
 * person's own GIT_SSH_COMMAND or core.sshCommand.
 */
export function gitEnvironment(env: Env): Record<string, string> {
  const out = definedEnv(env);
  out.GIT_TERMINAL_PROMPT = '0';
  out.GCM_INTERACTIVE = 'never';
  out.LC_ALL = 'C';
  out.LANGUAGE = 'C';
  return out;
}
