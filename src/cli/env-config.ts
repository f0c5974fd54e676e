// The one place that asks the operating system what src/core/env.ts cannot know.
import { readFileSync } from 'node:fs';
import { availableParallelism, homedir, hostname, tmpdir } from 'node:os';
import { unlessSystemError } from '../core/best-effort.js';
import type { Env } from '../core/deps.js';
import { readEnvConfig, type EnvConfig } from '../core/env.js';
import { RUNTIME_HOME_VARIABLES } from '../lanes/runtimes/homes.js';

/** abcd's configuration from this process's environment and this computer. */
export function envConfig(env: Env): EnvConfig {
  return readEnvConfig(
    env,
    { tmpdir: tmpdir(), hostname: hostname(), homedir: homedir(), cpus: availableParallelism(), bootId: bootId() },
    {
      toolHomeVariables: RUNTIME_HOME_VARIABLES,
    },
  );
}

/** Linux names each boot; elsewhere there is no such file and monotonic readings carry no boot. */
function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch (e) {
    // No such file (not Linux, no /proc) or one that cannot be read: no boot to name.
    return unlessSystemError(undefined)(e);
  }
}
