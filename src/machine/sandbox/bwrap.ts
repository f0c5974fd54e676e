// bubblewrap, as every piece of code abcd did not write runs: an agent of a lane, and every land
// check (which runs the code of the commit under test). The system read-only, the given folders
// hidden behind empty ones, a private /tmp, an empty /run (no daemon's socket: Docker's is root
// on the host), only the named folders writable, its own pid namespace that dies with abcd, and
// its own network namespace: a loopback only, which also puts the host's abstract unix sockets
// (`@name`, bound to a network namespace) out of reach. What leaves it goes through the relay and
// abcd's egress proxy (sandbox-network.ts).
import { execFile } from 'node:child_process';
import { lstatSync, statSync, type Stats } from 'node:fs';
import { unlessMissing } from '../../core/best-effort.js';
import type { Env } from '../../core/deps.js';
import { isInside } from './places.js';

export type SandboxMode = 'auto' | 'bwrap' | 'none';
export type Sandbox = 'bwrap' | 'none';

// Probing bubblewrap takes one short process; longer means it hangs, which is "not working".
const PROBE_TIMEOUT_MS = 10_000;
let probed: Promise<string | undefined> | undefined;

const PROBE = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent'];

/**
 * Why bubblewrap cannot run here, or undefined when it works. Probed once per process, with the
 * network namespace every sandbox gets: a bubblewrap that cannot make one does not work either.
 */
export function probeBwrap(env: Env): Promise<string | undefined> {
  probed ??= (async () => {
    const why = await tryBwrap(env, [...PROBE, '--unshare-net']);
    if (why === undefined || why === 'bwrap is not installed') return why;
    // Told apart only when it fails: whether bubblewrap works at all, or only not with its own network.
    if ((await tryBwrap(env, PROBE)) === undefined) return `bwrap cannot give a sandbox its own network namespace here (${why})`;
    return `bwrap does not work here (${why})`;
  })();
  return probed;
}

function tryBwrap(env: Env, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'bwrap',
      [...args, '--', 'true'],
      { timeout: PROBE_TIMEOUT_MS, env: { PATH: env.PATH ?? '/usr/bin:/bin' } },
      (err, _out, stderr) => {
        if (!err) return resolve(undefined);
        const code = (err as NodeJS.ErrnoException).code;
        resolve(code === 'ENOENT' ? 'bwrap is not installed' : String(stderr).trim().split('\n').at(-1) || err.message);
      },
    );
  });
}

/** A folder or file made visible inside at the same path (or, for `from`, another's content). */
export interface Bind {
  path: string;
  /** What appears at `path` (default: `path` itself). */
  from?: string;
  writable?: boolean;
}

/** What the sandbox hides and exposes for one run. */
export interface SandboxPlan {
  /** Folders that must look empty inside (the person's home, config, the clone), and files that must (a key file). */
  hide: readonly string[];
  /** What is visible inside the hidden folders (and /tmp): the run's own folder, read-only programs. */
  binds: readonly Bind[];
  /** Symlinks to recreate inside a hidden folder (a program's PATH entry pointing at its install). */
  symlinks?: ReadonlyArray<{ path: string; target: string }>;
  /** Where the command starts. */
  chdir: string;
  /** What runs first inside, before the command (the network's relay). */
  inside?: readonly string[];
}

const SYSTEM = /^\/(usr|bin|sbin|lib\w*|etc|opt|proc|dev|sys|run|var)?\/?$/;
// Where daemons keep their sockets and programs leave files for others: empty in every sandbox.
// /var/run and /var/lock are links into /run on most systems; where one is a folder, it is emptied too.
const EMPTIED = ['/run', '/var/run', '/var/lock', '/var/tmp'];

/** bwrap's argv before the command. Parents are hidden before their children are exposed. */
export function bwrapArgs(plan: SandboxPlan): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  // Never hide the root or the system itself (a clone or HOME at / would blank everything).
  const hide = [...new Set(plan.hide)].filter((p) => !SYSTEM.test(p) && isDirectory(p)).sort(byLength);
  for (const p of EMPTIED) if (isRealDirectory(p)) args.push('--tmpfs', p);
  for (const p of hide) args.push('--tmpfs', p);
  args.push('--tmpfs', '/tmp');
  // A hidden file outside every hidden folder reads as empty; inside one it is gone already.
  const files = [...new Set(plan.hide)].filter((p) => isFile(p) && !hide.some((d) => isInside(p, d)) && !p.startsWith('/tmp/'));
  for (const p of files) args.push('--ro-bind', '/dev/null', p);
  // A bind inside another bind comes after it: the worktree's .git file over the worktree.
  const binds = [...plan.binds].sort((a, b) => byLength(a.path, b.path));
  for (const b of binds) args.push(b.writable ? '--bind' : '--ro-bind', b.from ?? b.path, b.path);
  for (const l of plan.symlinks ?? []) args.push('--symlink', l.target, l.path);
  args.push('--unshare-net', '--unshare-pid', '--unshare-ipc', '--die-with-parent', '--chdir', plan.chdir);
  return args;
}

/** The whole argv of `argv` run in the plan's sandbox, what runs first inside included. */
export function sandboxArgv(plan: SandboxPlan, argv: readonly string[]): string[] {
  return ['bwrap', ...bwrapArgs(plan), '--', ...(plan.inside ?? []), ...argv];
}

function byLength(a: string, b: string): number {
  return a.length - b.length;
}

// A folder to hide or empty that is not there has nothing to hide. Any other failure to look
// (a loop of links, a folder this user cannot search) is thrown on: a folder that could not be
// looked at is never quietly left out of the hidden ones, and the sandbox does not start.
function isRealDirectory(p: string): boolean {
  return orMissing(() => lstatSync(p))?.isDirectory() ?? false;
}

function isFile(p: string): boolean {
  return orMissing(() => statSync(p))?.isFile() ?? false;
}

function isDirectory(p: string): boolean {
  return orMissing(() => statSync(p))?.isDirectory() ?? false;
}

function orMissing(look: () => Stats): Stats | undefined {
  try {
    return look();
  } catch (e) {
    return unlessMissing(undefined)(e);
  }
}
