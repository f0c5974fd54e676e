// abcd's environment variables, parsed in one place (gh's Factory): src/cli/main.ts builds an
// EnvConfig once from process.env and this computer's facts and hands it down on Deps. Code
// below src/cli reads deps.config, never an ABCD_* variable, os.tmpdir() or os.hostname().
// Paths and names are read at once; values that can be malformed are parsed when a verb
// asks for them, so a bad ABCD_GATE_SLOTS is refused by `abcd gate`, not by `abcd status`.
import { join } from 'node:path';
import type { Env } from './environment.js';
import { UsageError } from './refusals.js';
import { parseDuration, parseInstant } from './duration.js';

/** What only the operating system knows; gathered in src/cli (env-config.ts). */
export interface SystemFacts {
  tmpdir: string;
  hostname: string;
  homedir: string;
  cpus: number;
  /** This boot of the machine (Linux: /proc/sys/kernel/random/boot_id); undefined where the system has none. */
  bootId?: string;
}

export interface GitHubOverrides {
  readonly apiUrl?: string;
  readonly webUrl?: string;
  readonly graphqlUrl?: string;
}

export interface EnvConfig {
  /** ABCD_SESSION, when set and not empty: this session's id. */
  readonly session: string | undefined;
  /** ABCD_MACHINE_DIR, else <tmp>/abcd-machine: the load gate and model budget of this computer. */
  readonly machineDir: string;
  /** The system's temporary folder (land's worktrees, credential sockets). */
  readonly tmpDir: string;
  /** This computer's name, as claims record it. */
  /** This boot of the machine, when the system names it: a monotonic reading means nothing across boots. */
  readonly bootId: string | undefined;
  readonly host: string;
  /** HOME, else the account's home folder. */
  readonly home: string;
  /** ABCD_GITHUB_HOSTS: GitHub Enterprise hosts besides github.com and *.ghe.com. */
  readonly githubHosts: readonly string[];
  /** ABCD_CONFIG_DIR, else $XDG_CONFIG_HOME/abcd, else <home>/.config/abcd: App settings and tokens. */
  readonly configDir: string;
  /** ABCD_GITHUB_API_URL, ABCD_GITHUB_URL, ABCD_GITHUB_GRAPHQL_URL: overrides (Enterprise, tests). */
  readonly github: GitHubOverrides;
  /** The config folders the runtimes' CLIs keep, as the variables they name say (every sandbox hides them). */
  readonly toolHomes: readonly string[];
  /** ABCD_LANE: the lane this process runs under (a build or drain lane sets it), if any. */
  readonly lane: string | undefined;
  /** ABCD_GATE_SLOTS, else half the CPUs (at least one). Throws UsageError on a bad value. */
  gateSlots(): number;
  /** ABCD_NETWORK_TIMEOUT in ms, if set. Throws UsageError on a bad value. */
  networkTimeoutMs(): number | undefined;
  /** ABCD_JOB_DEADLINE as epoch ms, if set. Throws UsageError on a bad value. */
  jobDeadline(): number | undefined;
}

/** Every variable abcd reads or sets, for --help and the README. Keep in step with EnvConfig. */
export const ENV_VARIABLES: ReadonlyArray<readonly [name: string, meaning: string]> = [
  ['ABCD_SESSION', "this session's id (default: one kept per worktree)"],
  ['ABCD_MACHINE_DIR', 'load gate and budget folder (default <tmp>/abcd-machine)'],
  ['ABCD_GATE_SLOTS', 'heavy jobs at once on this computer (default: half the CPUs)'],
  ['ABCD_JOB_DEADLINE', 'RFC 3339 end of the CI job: waits and lanes end before it'],
  ['ABCD_NETWORK_TIMEOUT', 'longest one git network call may take (e.g. 90s)'],
  ['ABCD_CONFIG_DIR', 'App settings and tokens (default ~/.config/abcd)'],
  ['ABCD_GITHUB_HOSTS', 'GitHub Enterprise hosts, comma-separated'],
  ['ABCD_GITHUB_API_URL', 'GitHub REST root (Enterprise, tests)'],
  ['ABCD_GITHUB_URL', 'GitHub web root, for the device flow (Enterprise, tests)'],
  ['ABCD_GITHUB_GRAPHQL_URL', 'GitHub GraphQL endpoint (default <API URL>/graphql)'],
  ['ABCD_LANE', 'set by a lane: settings writes are refused under it'],
  ['ABCD_USAGE', 'file an agent appends usage lines to, {"tokens":n} or named kinds and costUsd (model budget)'],
  ['ABCD_GATE_HELD', 'set by abcd for a command it runs under the load gate'],
  ['ABCD_LAND_ITEM', "set by abcd for land's checks: the item landing"],
  ['ABCD_LAND_TIP', "set by abcd for land's checks: the commit under test"],
  ['ABCD_LAND_BASE', "set by abcd for land's checks: the parent the commit is tested on"],
  ['ABCD_ITEM', "set by a lane for its agent: the item's key"],
  ['ABCD_ITEM_FILE', 'set by a lane for its agent: a readable copy of the item'],
  ['ABCD_WORKTREE', "set by a lane for its agent: the cycle's own worktree"],
  ['ABCD_RUN_ID', "set by a lane for its agent: the lane run's id"],
  ['ABCD_RUN_HEAD', 'set by a lane for its agent: the commit the cycle started from'],
  ['ABCD_RUN_STARTED_AT', 'set by a lane for its agent: when the cycle started (RFC 3339)'],
  ['ABCD_MAILBOX', 'set by a lane for its agent: the file abcd appends messages to'],
  ['ABCD_MAILBOX_FROM', 'set by a lane for a steered agent: where the new envelope starts'],
  ['ABCD_STEER_ROUND', 'set by a lane for a steered agent: which steer round this is'],
  ['ABCD_PROMPT', "set by a lane for a command agent: the file holding this turn's text (the task, steers, a conflict or a failing check)"],
  ['ABCD_TURN_KIND', 'set by a lane for a command agent: why this turn runs (task, steer, conflict, check)'],
  ['ABCD_TURN', "set by a lane for a command agent: the turn's number in the cycle, from 1"],
];

/** Reads the environment once. Nothing here throws: malformed values throw when asked for. */
export function readEnvConfig(env: Env, system: SystemFacts, o: { toolHomeVariables?: readonly string[] } = {}): EnvConfig {
  const set = (name: string) => {
    const v = env[name];
    return v !== undefined && v.trim() !== '' ? v : undefined;
  };
  const home = env.HOME || system.homedir;
  const github: GitHubOverrides = {
    ...(env.ABCD_GITHUB_API_URL ? { apiUrl: env.ABCD_GITHUB_API_URL } : {}),
    ...(env.ABCD_GITHUB_URL ? { webUrl: env.ABCD_GITHUB_URL } : {}),
    ...(env.ABCD_GITHUB_GRAPHQL_URL ? { graphqlUrl: env.ABCD_GITHUB_GRAPHQL_URL } : {}),
  };
  return {
    session: env.ABCD_SESSION === '' ? undefined : env.ABCD_SESSION,
    // Shared by every user of the computer, like /tmp itself; never under HOME.
    machineDir: set('ABCD_MACHINE_DIR') ?? join(system.tmpdir, 'abcd-machine'),
    tmpDir: system.tmpdir,
    host: system.hostname || 'unknown-host',
    bootId: system.bootId,
    home,
    configDir: env.ABCD_CONFIG_DIR || (env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'abcd') : join(home, '.config', 'abcd')),
    github,
    toolHomes: (o.toolHomeVariables ?? []).flatMap((name) => {
      const v = set(name);
      return v?.startsWith('/') ? [v] : [];
    }),
    githubHosts: (env.ABCD_GITHUB_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean),
    lane: env.ABCD_LANE || undefined,
    gateSlots: () => slotsFrom(env.ABCD_GATE_SLOTS, 'ABCD_GATE_SLOTS', system.cpus),
    networkTimeoutMs: () => (env.ABCD_NETWORK_TIMEOUT ? parseDuration(env.ABCD_NETWORK_TIMEOUT, 'ABCD_NETWORK_TIMEOUT') : undefined),
    jobDeadline: () => (env.ABCD_JOB_DEADLINE ? parseInstant(env.ABCD_JOB_DEADLINE, 'ABCD_JOB_DEADLINE') : undefined),
  };
}

/** A slot count from --slots or ABCD_GATE_SLOTS; unset or empty: half the CPUs, at least one. */
export function slotsFrom(raw: string | undefined, name: string, cpus: number): number {
  if (raw === undefined || raw === '') return Math.max(1, Math.floor(cpus / 2));
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${name} is "${raw}"; it must be a whole number of at least 1.`, 'count', { [name]: raw });
  return n;
}

/** The variables as an epilogue for `abcd --help`. */
export function describeEnvironment(): string {
  const width = Math.max(...ENV_VARIABLES.map(([n]) => n.length));
  return ['Environment:', ...ENV_VARIABLES.map(([n, m]) => `  ${n.padEnd(width)}  ${m}`)].join('\n');
}
