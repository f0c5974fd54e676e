// Running one parsed verb and reporting it: the steps the fast path shares with yargs' handler.
import { fileURLToPath } from 'node:url';
import { systemClock, type Deps, type Output } from '../core/deps.js';
import type { CliContext, Command, GlobalArgs } from './command.js';
import { reportResult } from './report.js';
import { makeWaitLine } from './wait-line.js';
import { envConfig } from './env-config.js';
import { rememberSecretsOf } from '../core/known-secrets.js';

/**
 * Runs one parsed verb and reports its answer; returns its exit code, if it set one. The same
 * steps as main.ts's yargs handler, for the fast path (fast-verbs.ts) that skips yargs.
 */
export async function runVerb(
  c: Command,
  g: Record<string, unknown> & GlobalArgs,
  out: Output,
  cli: CliContext,
): Promise<number | undefined> {
  // A live wait line only for a person at a terminal: never on a pipe, never under --json.
  const progress = process.stderr.isTTY && !g.json ? makeWaitLine(process.stderr) : undefined;
  const self = { node: process.execPath, script: fileURLToPath(new URL('../../bin/abcd', import.meta.url)) };
  // What abcd holds by value is scrubbed from everything it writes and refused in what it lands.
  rememberSecretsOf(process.env);
  const deps: Deps = {
    cwd: process.cwd(),
    env: process.env,
    config: envConfig(process.env),
    clock: systemClock,
    out,
    remote: g.remote ?? 'origin',
    self,
    signal: stopSignal(),
    ...(progress ? { progress } : {}),
  };
  const result = await c.run(g, deps, cli).finally(() => progress?.(null));
  reportResult(result, { json: g.json, out });
  return result.refusal?.exit ?? result.exitCode;
}

// How long a stopped verb may take to undo its work (leave the land queue, remove a worktree).
const STOP_GRACE_MS = 5000;

/** SIGINT/SIGTERM become an abort the verb acts on; a second signal or the grace ends the process. */
function stopSignal(): AbortSignal {
  const ac = new AbortController();
  // The reason names the signal: `abcd gate` passes a SIGTERM on to its command.
  const stop = (signal: NodeJS.Signals) => {
    if (ac.signal.aborted) process.exit(130);
    ac.abort(signal);
    setTimeout(() => process.exit(130), STOP_GRACE_MS).unref();
  };
  process.on('SIGINT', stop).on('SIGTERM', stop);
  return ac.signal;
}
