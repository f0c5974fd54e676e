import { z } from 'zod';
import { CheckFailed, UsageError } from '../../refusals.js';
import type { Git } from '../../remote/git.js';
import { spawnProcess } from '../../process/spawn.js';
import { formatDuration } from '../../time/duration.js';

export const CONFIG_PATH = '.abcd/config.json';
// A check that runs longer than this is stuck; the land refuses rather than wait forever.
const DEFAULT_CHECK_TIMEOUT_MS = 30 * 60_000;
// How much of a failing check's output the refusal carries.
const OUTPUT_TAIL_CHARS = 4000;

const ConfigSchema = z.object({
  land: z
    .object({
      checks: z.union([z.string(), z.array(z.string())]).optional(),
      timeout: z.string().regex(/^\d+(ms|s|m|h)$/).optional(),
    })
    .optional(),
});

export interface LandConfig {
  checks: string[];
  timeoutMs: number;
}

/** The checks configured on main (never the work branch's copy, which the lander controls). */
export async function readLandConfig(git: Git, mainTip: string, parseDuration: (t: string) => number): Promise<LandConfig> {
  const r = await git.run(['cat-file', 'blob', `${mainTip}:${CONFIG_PATH}`]);
  if (r.exitCode !== 0) return { checks: [], timeoutMs: DEFAULT_CHECK_TIMEOUT_MS };
  let parsed;
  try {
    parsed = ConfigSchema.safeParse(JSON.parse(r.stdout.toString()));
  } catch (e) {
    throw new UsageError(`${CONFIG_PATH} on main is not JSON (${(e as Error).message}); fix it on main.`, { path: CONFIG_PATH });
  }
  if (!parsed.success) {
    throw new UsageError(`${CONFIG_PATH} on main has the wrong shape: ${parsed.error.issues[0]?.message}. Expected {"land": {"checks": "npm test"}}.`, {
      path: CONFIG_PATH,
    });
  }
  const c = parsed.data.land?.checks;
  return {
    checks: (Array.isArray(c) ? c : c ? [c] : []).filter((x) => x.trim() !== ''),
    timeoutMs: parsed.data.land?.timeout ? parseDuration(parsed.data.land.timeout) : DEFAULT_CHECK_TIMEOUT_MS,
  };
}

export interface CheckRun {
  command: string;
  exitCode: number;
  durationMs: number;
}

/** Runs each check with the shell in `cwd`; the first failure is a CheckFailed refusal. */
export async function runChecks(o: {
  cwd: string;
  checks: readonly string[];
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  now: () => number;
}): Promise<CheckRun[]> {
  const runs: CheckRun[] = [];
  for (const command of o.checks) {
    const t0 = o.now();
    // Its own process group: a timeout or a fence ends everything the check started.
    const r = await spawnProcess('sh', ['-c', command], { cwd: o.cwd, env: o.env, group: true, timeoutMs: o.timeoutMs, signal: o.signal });
    const run = { command, exitCode: r.fired ? 124 : (r.exitCode ?? 1), durationMs: o.now() - t0 };
    runs.push(run);
    if (run.exitCode !== 0 || r.fired) {
      const why = r.fired === 'timeout' ? `timed out after ${formatDuration(o.timeoutMs)}` : r.fired ? 'was stopped' : `exited ${run.exitCode}`;
      const tail = r.all.toString().slice(-OUTPUT_TAIL_CHARS);
      throw new CheckFailed(`the check "${command}" ${why}; nothing landed. Its output ends:\n${tail}`, {
        check: command,
        exitCode: run.exitCode,
        timedOut: r.fired === 'timeout',
        output: tail,
      });
    }
  }
  return runs;
}
