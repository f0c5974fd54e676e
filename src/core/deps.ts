// The dependencies every verb receives, built once in src/cli/main.ts (gh's Factory).
// Nothing below src/cli/ reads process.env, process.argv or calls process.exit.
import type { EnvConfig } from './env.js';
import type { Env } from './environment.js';

export { definedEnv, type Env } from './environment.js';

export interface Clock {
  /** Milliseconds since the epoch on this machine's wall clock. */
  now(): number;
  /** Resolves after ms (or at once when aborted). */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Milliseconds on this machine's monotonic clock: system-wide, never set, unmoved by a wall
   * clock that jumps (NTP correcting a bad RTC, a VM resuming). Absent where a fake clock has none.
   */
  monotonic?(): number;
}

export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stdout is a terminal (tables and colour) or a pipe (plain text). */
  readonly isTTY: boolean;
  /** The terminal's width in columns, when stdout is one. */
  columns?(): number | undefined;
  /** The terminal's height in rows, when stdout is one. */
  rows?(): number | undefined;
}

export interface Deps {
  readonly cwd: string;
  /** The whole environment, for the processes abcd starts (git, checks, commands). */
  readonly env: Env;
  /** abcd's own variables, parsed once (src/core/env.ts); read these, not env.ABCD_*. */
  readonly config: EnvConfig;
  readonly clock: Clock;
  readonly out: Output;
  /** Name of the shared remote (default origin). */
  readonly remote: string;
  /** How to start this abcd again (git runs `abcd credential` as its helper). */
  readonly self?: { node: string; script: string };
  /**
   * Shows one live line while a verb waits (what on, position, time left), replaced on each
   * call, removed with null. Absent on a pipe and under --json: waits then say nothing.
   */
  readonly progress?: (line: string | null) => void;
  /** Aborted when the process is asked to stop (SIGINT, SIGTERM): long verbs undo and end. */
  readonly signal?: AbortSignal;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  // CLOCK_MONOTONIC on Linux (libuv's hrtime): the same clock in every process of this boot.
  monotonic: () => Number(process.hrtime.bigint() / 1_000_000n),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, ms));
      function done() {
        signal?.removeEventListener('abort', done);
        clearTimeout(timer);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};
