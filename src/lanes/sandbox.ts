// bubblewrap around the agent: the cycle's folder writable, the system read-only, a private
// /tmp, the person's home and config folders replaced by empty ones, its own pid namespace
// that dies with the lane. The network stays: agents call their model.
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from '../core/deps.js';
import { UnsafeEnvironment } from '../core/refusals.js';

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

/**
 * The sandbox a lane uses. `auto` takes bubblewrap when it works; without it an unattended
 * lane refuses (exit 7) naming the fix, and an attended one runs unsandboxed.
 */
export async function chooseSandbox(
  mode: SandboxMode,
  o: { env: Env; attended: boolean },
): Promise<{ sandbox: Sandbox; warning?: string }> {
  if (mode === 'none') return { sandbox: 'none' };
  const why = await probeBwrap(o.env);
  if (!why) return { sandbox: 'bwrap' };
  if (mode === 'auto' && o.attended) return { sandbox: 'none', warning: `${why}: the attended lane runs its agent unsandboxed` };
  throw new UnsafeEnvironment(
    `${why}, and a lane does not run an agent unsandboxed by default. Install bubblewrap ` +
      '(Debian/Ubuntu: apt-get install bubblewrap; it needs unprivileged user namespaces), ' +
      'or pass --sandbox none to run the agent as yourself knowingly.',
    { sandbox: mode, reason: why },
  );
}

const SYSTEM = /^\/(usr|bin|sbin|lib\w*|etc|opt|proc|dev|sys|run|var)?\/?$/;

/** What the sandbox hides and exposes for one cycle. */
export interface SandboxPlan {
  /** The cycle's folder (worktree, HOME, mailbox): writable. */
  cycleDir: string;
  /** The lane repository's object store the agent's repository borrows from: read-only. */
  objectsDir: string;
  /** Folders that must look empty inside (the person's home, config, the lane's clone). */
  hide: readonly string[];
}

/** Folders holding the person's secrets or abcd's own state, as this environment names them. */
export function secretPlaces(env: Env, home: string): string[] {
  const places = [home, env.XDG_CONFIG_HOME, env.GH_CONFIG_DIR, env.ABCD_CONFIG_DIR, env.ABCD_MACHINE_DIR, join(home, '.ssh')];
  return places.filter((p): p is string => typeof p === 'string' && p.startsWith('/') && p !== '/');
}

/** bwrap's argv before the command. Parents are hidden before their children are exposed. */
export function bwrapArgs(plan: SandboxPlan): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  // Never hide the root or the system itself (a clone or HOME at / would blank everything).
  const hide = [...new Set(plan.hide)].filter((p) => !SYSTEM.test(p) && isDirectory(p)).sort((a, b) => a.length - b.length);
  for (const p of hide) args.push('--tmpfs', p);
  args.push('--tmpfs', '/tmp');
  args.push('--ro-bind', plan.objectsDir, plan.objectsDir);
  args.push('--bind', plan.cycleDir, plan.cycleDir);
  args.push('--unshare-pid', '--unshare-ipc', '--die-with-parent', '--chdir', join(plan.cycleDir, 'wt'));
  return args;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
