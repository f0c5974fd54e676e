// bubblewrap, as every piece of code abcd did not write runs: an agent of a lane, and every land
// check (which runs the code of the commit under test). The system read-only, the given folders
// hidden behind empty ones, a private /tmp, only the named folders writable, its own pid
// namespace that dies with abcd. The network stays unless the plan says otherwise.
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Env } from '../../core/deps.js';

export type SandboxMode = 'auto' | 'bwrap' | 'none';
export type Sandbox = 'bwrap' | 'none';

// Probing bubblewrap takes one short process; longer means it hangs, which is "not working".
const PROBE_TIMEOUT_MS = 10_000;
let probed: Promise<string | undefined> | undefined;

/** Why bubblewrap cannot run here, or undefined when it works. Probed once per process. */
export function probeBwrap(env: Env): Promise<string | undefined> {
  probed ??= new Promise((resolve) => {
    execFile(
      'bwrap',
      ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--', 'true'],
      { timeout: PROBE_TIMEOUT_MS, env: { PATH: env.PATH ?? '/usr/bin:/bin' } },
      (err, _out, stderr) => {
        if (!err) return resolve(undefined);
        const code = (err as NodeJS.ErrnoException).code;
        resolve(
          code === 'ENOENT'
            ? 'bwrap is not installed'
            : `bwrap does not work here (${String(stderr).trim().split('\n').at(-1) || err.message})`,
        );
      },
    );
  });
  return probed;
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
  /** Folders that must look empty inside (the person's home, config, the clone). */
  hide: readonly string[];
  /** What is visible inside the hidden folders (and /tmp): the run's own folder, read-only programs. */
  binds: readonly Bind[];
  /** Symlinks to recreate inside a hidden folder (a program's PATH entry pointing at its install). */
  symlinks?: ReadonlyArray<{ path: string; target: string }>;
  /** Where the command starts. */
  chdir: string;
  /** false: no network at all (a loopback of its own). */
  network?: boolean;
}

const SYSTEM = /^\/(usr|bin|sbin|lib\w*|etc|opt|proc|dev|sys|run|var)?\/?$/;

/** bwrap's argv before the command. Parents are hidden before their children are exposed. */
export function bwrapArgs(plan: SandboxPlan): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  // Never hide the root or the system itself (a clone or HOME at / would blank everything).
  const hide = [...new Set(plan.hide)].filter((p) => !SYSTEM.test(p) && isDirectory(p)).sort(byLength);
  for (const p of hide) args.push('--tmpfs', p);
  args.push('--tmpfs', '/tmp');
  // A bind inside another bind comes after it: the worktree's .git file over the worktree.
  const binds = [...plan.binds].sort((a, b) => byLength(a.path, b.path));
  for (const b of binds) args.push(b.writable ? '--bind' : '--ro-bind', b.from ?? b.path, b.path);
  for (const l of plan.symlinks ?? []) args.push('--symlink', l.target, l.path);
  if (plan.network === false) args.push('--unshare-net');
  args.push('--unshare-pid', '--unshare-ipc', '--die-with-parent', '--chdir', plan.chdir);
  return args;
}

function byLength(a: string, b: string): number {
  return a.length - b.length;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
