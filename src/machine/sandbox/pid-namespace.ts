// Without bubblewrap, code abcd runs still must not outlive its run: a `setsid` daemon leaves
// the process group abcd kills. In a pid namespace of its own (util-linux's unshare) the first
// process is the namespace's init, and when it ends the kernel kills every process left in it.
// Where the kernel or the tools refuse that, the caller sweeps by a marker in the environment.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { unlessMissing, unlessSystemError } from '../../core/best-effort.js';
import type { Env } from '../../core/deps.js';

// Probing unshare takes one short process; longer means it hangs, which is "not working".
const PROBE_TIMEOUT_MS = 10_000;
const AS_ROOT = ['--pid', '--fork', '--kill-child', '--mount-proc'];
// Without root: a user namespace that maps the caller to itself (an agent that refuses to run
// as root, as some do, still sees its own uid).
const AS_USER = ['--user', '--map-current-user', ...AS_ROOT];
let probed: Promise<string[] | undefined> | undefined;

/** unshare's argv before `--` and the command, or undefined when no pid namespace can be had here. */
export function pidNamespacePrefix(env: Env): Promise<string[] | undefined> {
  probed ??= (async () => {
    if (process.platform !== 'linux') return undefined;
    for (const args of [AS_ROOT, AS_USER]) if (await works(['unshare', ...args], env)) return ['unshare', ...args];
    return undefined;
  })();
  return probed;
}

function works(argv: string[], env: Env): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(argv[0]!, [...argv.slice(1), '--', 'true'], { timeout: PROBE_TIMEOUT_MS, env: { PATH: env.PATH ?? '/usr/bin:/bin' } }, (err) =>
      resolve(!err),
    );
  });
}

/**
 * Kills every process of this user whose environment holds `marker` (`NAME=value`): what a run
 * started and that left its process group. Best effort, Linux only (reads /proc); returns the pids.
 */
export async function sweepByEnvironment(marker: string): Promise<number[]> {
  // No /proc (not Linux): nothing to sweep by.
  const listed = await readdir('/proc').catch(unlessMissing([] as string[]));
  const pids = listed.filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
  const needle = Buffer.from(`${marker}\0`);
  const killed: number[] = [];
  for (const p of pids) {
    // Gone since the listing, or another user's (not readable): not one to sweep.
    const environ = await readFile(`/proc/${p}/environ`).catch(unlessSystemError(undefined));
    if (!environ || !(environ.indexOf(needle) === 0 || environ.includes(Buffer.concat([Buffer.from('\0'), needle])))) continue;
    try {
      process.kill(Number(p), 'SIGKILL');
      killed.push(Number(p));
    } catch (e) {
      // Gone already, or not ours to kill.
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ESRCH' && code !== 'EPERM') throw e;
    }
  }
  return killed;
}
