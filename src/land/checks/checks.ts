// The land's checks from .abcd/config.json, each bounded by a timeout.
import { readRepoConfig } from '../../repo/config.js';
import { CheckFailed } from '../../core/refusals.js';
import type { Git } from '../../git/git.js';
import { StringDecoder } from 'node:string_decoder';
import { spawnProcess } from '../../core/spawn.js';
import { formatDuration } from '../../core/duration.js';
import type { SandboxMode } from '../../machine/sandbox/bwrap.js';
import type { NetworkEvent } from '../../machine/sandbox/sandbox-network.js';
import type { RelayKind } from '../../machine/sandbox/network-log.js';
import { checkEnvNames } from '../../machine/sandbox/environment.js';
import { keyFileSettings } from '../../machine/gateway/key-file.js';
import { DEFAULT_PRIORITY_AGE_MS } from '../queue/priority.js';
import type { IntegrationStrategy } from '../../records/queue.js';

// A check that runs longer than this is stuck; the land refuses rather than wait forever.
const DEFAULT_CHECK_TIMEOUT_MS = 30 * 60_000;
// How much of a failing check's output the refusal carries.
const OUTPUT_TAIL_CHARS = 4000;

export interface LandConfig {
  checks: string[];
  timeoutMs: number;
  /** How many queue entries are tested at once, each on the ones ahead of it (1: only the head). */
  speculate: number;
  /** How many live entries the head of the queue tests as one stack (1: each entry alone). */
  batch: number;
  /** How long a batch's head waits for its batch to fill before it tests. */
  batchWaitMs: number;
  /** How checks run: bubblewrap when it works (auto), always (bwrap), or as the person (none). */
  sandbox: SandboxMode;
  /** Variables a check gets on top of the allow-list. */
  envNames: string[];
  /** false: a sandboxed check has no way out of its loopback; else the hosts its egress proxy allows. */
  network: false | { allow: string[] };
  /** A failing check runs again this many times on the same tree before it counts as failed. */
  retries: number;
  /** The runtimes' `keyFile` settings (model keys on the lane's machine): hidden from every check. */
  keyFiles: string[];
  /** How far a priority moves a queue entry (land/priority.ts). */
  priorityAgeMs: number;
  /** How the work comes onto main unless `--strategy` says (absent: the caller's default). */
  strategy?: IntegrationStrategy;
}

/**
 * The checks configured on main (never the work branch's copy, which the lander controls).
 * A config the one schema refuses (a typo such as `land.check`) is a UsageError naming the key.
 */
export async function readLandConfig(git: Git, mainTip: string, parseDuration: (t: string) => number): Promise<LandConfig> {
  const repoConfig = await readRepoConfig(git, mainTip);
  const land = repoConfig.land;
  const c = land?.checks;
  return {
    checks: (Array.isArray(c) ? c : c ? [c] : []).filter((x) => x.trim() !== ''),
    timeoutMs: land?.timeout ? parseDuration(land.timeout) : DEFAULT_CHECK_TIMEOUT_MS,
    speculate: land?.speculate ?? 1,
    batch: land?.batch ?? 1,
    batchWaitMs: land?.batchWait ? parseDuration(land.batchWait) : 0,
    sandbox: land?.sandbox ?? 'auto',
    envNames: checkEnvNames(land?.env ?? [], 'land.env'),
    // `true`, from before checks had an allow-list, means what leaving it out means: the list, empty by default.
    network: land?.network === false ? false : { allow: typeof land?.network === 'object' ? (land.network.allow ?? []) : [] },
    retries: land?.retries ?? 0,
    keyFiles: keyFileSettings(repoConfig.lanes),
    priorityAgeMs: land?.priorityAge ? parseDuration(land.priorityAge) : DEFAULT_PRIORITY_AGE_MS,
    ...(land?.strategy ? { strategy: land.strategy } : {}),
  };
}

/**
 * readLandConfig, once per commit: a commit's `.abcd/config.json` never changes, so a land that
 * reads main's tip again and finds it where it was reads no blob again. Refusals are not kept.
 */
export function landConfigReader(git: Git, parseDuration: (t: string) => number): (mainTip: string) => Promise<LandConfig> {
  const read = new Map<string, LandConfig>();
  return async (mainTip) => {
    const known = read.get(mainTip);
    if (known) return known;
    const config = await readLandConfig(git, mainTip, parseDuration);
    read.set(mainTip, config);
    return config;
  };
}

/** Who watches a land's checks as they run (a lane's log and its phase). */
export interface CheckWatch {
  /** The checks of one test start (true) or are over (false), however they ended. */
  running?(on: boolean): void;
  /** What the checks print, as it comes, with a line before and after each check. */
  output?(text: string): void;
  /** A connection a check's sandbox asked for, allowed or refused. */
  network?(e: NetworkEvent): void;
  /** Which relay a check's sandbox carries its network out with, as each test's sandbox opens. */
  relay?(relay: RelayKind): void;
  /** Said before checks run without the sandbox (land.sandbox "none", or no bubblewrap). */
  warning?(text: string): void;
}

export interface CheckRun {
  command: string;
  exitCode: number;
  durationMs: number;
  /** Which run of this check on this tree (1 unless `land.retries` ran it again). */
  attempt: number;
}

/** The checks that passed only when run again: flaky, and said so in the result and status. */
export function passedOnRetry(runs: readonly CheckRun[]): { check: string; attempts: number }[] {
  const last = new Map<string, CheckRun>();
  for (const r of runs) last.set(r.command, r);
  return [...last.values()].filter((r) => r.exitCode === 0 && r.attempt > 1).map((r) => ({ check: r.command, attempts: r.attempt }));
}

/**
 * Runs each check in `cwd` as `argv` says (its sandbox); a failing one runs again up to
 * `retries` times on the same tree, and the first check that fails every attempt is a
 * CheckFailed refusal carrying every run so far. A timeout or a stop is never retried.
 */
export async function runChecks(o: {
  cwd: string;
  checks: readonly string[];
  argv: (command: string) => string[];
  env: Record<string, string>;
  timeoutMs: number;
  retries?: number;
  signal: AbortSignal;
  now: () => number;
  watch?: CheckWatch;
}): Promise<CheckRun[]> {
  o.watch?.running?.(true);
  try {
    return await runEachCheck(o);
  } finally {
    o.watch?.running?.(false);
  }
}

async function runEachCheck(o: Parameters<typeof runChecks>[0]): Promise<CheckRun[]> {
  const runs: CheckRun[] = [];
  const say = o.watch?.output;
  for (const command of o.checks) {
    for (let attempt = 1; ; attempt++) {
      const t0 = o.now();
      // Its own process group: a timeout or a fence ends everything the check started.
      const [file, ...args] = o.argv(command) as [string, ...string[]];
      say?.(`\n[abcd] check: ${command}${attempt > 1 ? ` (attempt ${attempt})` : ''}\n`);
      // A character split between two chunks is joined before it is passed on.
      const text = new StringDecoder('utf8');
      const r = await spawnProcess(file, args, {
        cwd: o.cwd,
        env: o.env,
        group: true,
        timeoutMs: o.timeoutMs,
        signal: o.signal,
        ...(say ? { onOutput: (c: Buffer) => say(text.write(c)) } : {}),
      });
      const run = { command, exitCode: r.fired ? 124 : (r.exitCode ?? 1), durationMs: o.now() - t0, attempt };
      runs.push(run);
      const why =
        r.fired === 'timeout' ? `timed out after ${formatDuration(o.timeoutMs)}` : r.fired ? 'was stopped' : `exited ${run.exitCode}`;
      say?.(`\n[abcd] check ${why}${r.fired === 'timeout' ? '' : ` after ${formatDuration(run.durationMs)}`}\n`);
      if (run.exitCode === 0 && !r.fired) break;
      if (!r.fired && attempt <= (o.retries ?? 0) && !o.signal.aborted) continue;
      const tail = r.all.toString().slice(-OUTPUT_TAIL_CHARS);
      const said = tail.trim() === '' ? 'It printed nothing (no output on stdout or stderr).' : `Its output ends:\n${tail}`;
      const tries = attempt > 1 ? ` on each of ${attempt} attempts` : '';
      throw new CheckFailed(`the check "${command}" ${why}${tries}; nothing landed. ${said}`, {
        check: command,
        exitCode: run.exitCode,
        timedOut: r.fired === 'timeout',
        output: tail,
        attempts: attempt,
        runs,
      });
    }
  }
  return runs;
}
