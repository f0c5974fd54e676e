// gh's own view of whether the person is logged in, by exit code alone. Its output is never
// read: stdout and stderr go to /dev/null, so no token can reach abcd even if a future gh
// printed one.
import { definedEnv, type Env } from '../../../core/deps.js';
import { spawnProcess } from '../../../core/spawn.js';

export type GhStatus =
  | { state: 'logged-in' }
  /**
   * gh exited non-zero. gh 2.23 also exits 1 when it holds a token it could not validate
   * (offline, or revoked), so this does not mean "no login": the hosts-file signal covers it.
   */
  | { state: 'not-logged-in'; exitCode: number }
  /** gh is missing, stalled past the timeout or could not start: neither yes nor no. */
  | { state: 'unknown'; reason: string };

export interface GhStatusInput {
  host: string;
  env: Env;
  timeoutMs: number;
}

export type RunGhStatus = (input: GhStatusInput) => Promise<GhStatus>;

/** Runs `gh auth status --hostname <host>` with the given environment and a hard timeout. */
export const runGhAuthStatus: RunGhStatus = async ({ host, env, timeoutMs }) => {
  const r = await spawnProcess('gh', ['auth', 'status', '--hostname', host], {
    // Never prompt and never phone home for an update notice: an unattended start must not block.
    env: { ...definedEnv(env), GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1' },
    stdout: 'ignore',
    stderr: 'ignore',
    group: true,
    timeoutMs,
  });
  if (r.fired === 'timeout') return { state: 'unknown', reason: `gh auth status gave no answer within ${timeoutMs} ms` };
  if (r.startError?.code === 'ENOENT') return { state: 'unknown', reason: 'gh is not installed (not on PATH)' };
  if (r.startError || r.exitCode === null) {
    return { state: 'unknown', reason: `gh auth status could not run (${r.startError?.code ?? r.signal ?? 'no exit code'})` };
  }
  return r.exitCode === 0 ? { state: 'logged-in' } : { state: 'not-logged-in', exitCode: r.exitCode };
};
