// The repository's `.abcd/config.json`: ONE schema, used by the code that reads it (land's
// checks, lanes) and the code that writes it (`abcd init`), so the two cannot drift. Every
// object is strict: a typo (`{"land":{"check":"npm test"}}`, `{"lnd":{}}`) is a refusal
// naming the key and the keys allowed, never a silently ignored setting.
import { z } from 'zod';
import type { Git } from '../git/git.js';
import { describeConfigIssue } from './config-issues.js';
import { UsageError } from '../core/refusals.js';
import { IntegrationStrategySchema } from '../records/queue.js';

export const CONFIG_PATH = '.abcd/config.json';

// A duration as the CLI writes it: 500ms, 90s, 5m, 2h, 1d.
const Duration = z.string().regex(/^\d{1,12}(ms|s|m|h|d)$/, 'a duration such as 90s, 5m or 2h');
// A variable name the agent's environment may take from the lane's (never a value).
const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name such as ANTHROPIC_API_KEY');
// A path on the person's computer: absolute, or under their home as ~/...
const HostPath = z
  .string()
  .max(4096)
  .regex(/^(?!.*(^|\/)\.\.(\/|$))(\/|~\/)/, 'an absolute path or one under your home such as ~/.local/share/claude');

export const LandSectionSchema = z.strictObject({
  /** Shell commands run in the integrated tree before landing; empty: no checks. */
  checks: z.union([z.string(), z.array(z.string())]).optional(),
  /** How long one check may run (default 30m). */
  timeout: Duration.optional(),
  /**
   * How many queue entries are tested at once, each on top of the ones ahead (default 1: only
   * the head, on main's tip). Deeper lands more per check time and wastes tests on failures.
   */
  speculate: z.number().int().min(1).max(16).optional(),
  /**
   * How checks run: `auto` (default) in bubblewrap when it works; `bwrap` always (refused
   * without it); `none` as the person, unsandboxed: their explicit opt-out, refused in an
   * unattended lane.
   */
  sandbox: z.enum(['auto', 'bwrap', 'none']).optional(),
  /** Names of variables a check gets on top of the allow-list (never tokens, ABCD_*, GIT_*, SSH_AUTH_SOCK). */
  env: z.array(EnvName).optional(),
  /** false: a sandboxed check has no network. */
  network: z.boolean().optional(),
  /**
   * How many times a failing check is run again on the same tree before the entry is judged
   * failed (default 0). For flaky checks; each attempt is in the land's result.
   */
  retries: z.number().int().min(0).max(5).optional(),
  /**
   * How far a priority moves a queue entry (default 10m): `high` ranks as if enqueued that much
   * earlier, `low` that much later, so a low entry is passed only by work enqueued within it.
   */
  priorityAge: Duration.optional(),
  /**
   * How the work comes onto main when `abcd land --strategy` does not say: `rebase`, `merge`, or
   * `squash` (one commit per item, its done mark inside). Absent: sessions rebase, lanes squash.
   */
  strategy: IntegrationStrategySchema.optional(),
});

export const LanesSectionSchema = z.strictObject({
  /** The agent command a lane runs per cycle when `--agent` is not given. */
  agent: z.string().min(1).optional(),
  sandbox: z.enum(['auto', 'bwrap', 'none']).optional(),
  /** Names of variables passed to the agent on top of the allow-list. */
  env: z.array(EnvName).optional(),
  /** Folders or files shown read-only inside the agent's sandbox (an agent installed under HOME). */
  bind: z.array(HostPath).max(64).optional(),
  /** No longer honoured (a lane says so): requesters are named in the person's signed settings. */
  requesters: z.array(z.string().min(1).max(400)).optional(),
  /** Steering a cycle in flight: steers per run (default 2; 0 turns it off), how often to look. */
  steer: z.strictObject({ max: z.number().int().nonnegative().max(100).optional(), poll: Duration.optional() }).optional(),
  agentTimeout: Duration.optional(),
  /** The claim's time to live while a lane holds an item. */
  ttl: Duration.optional(),
  idle: Duration.optional(),
  maxCycles: z.number().int().positive().max(1000).optional(),
  lanes: z.number().int().positive().max(64).optional(),
  lifecycle: z.enum(['once', 'poll', 'timed']).optional(),
  /** The most bytes of file content one cycle may add or change (default 50 MiB); past it nothing is pushed. */
  maxChangeBytes: z.number().int().positive().optional(),
  /** The most paths one cycle may add, change or delete (default 1000). */
  maxFiles: z.number().int().positive().optional(),
});

export const RepoConfigSchema = z.strictObject({
  land: LandSectionSchema.optional(),
  lanes: LanesSectionSchema.optional(),
});

export type RepoConfig = z.infer<typeof RepoConfigSchema>;
export type LanesConfig = z.infer<typeof LanesSectionSchema>;

/** What `abcd init` writes when there is no config yet. */
export const DEFAULT_REPO_CONFIG: RepoConfig = { land: { checks: '' } };

/** Parses the file's text; `where` names it in refusals (e.g. ".abcd/config.json on main"), `fix` says what to do. */
export function parseRepoConfig(text: string, where: string, fix = 'fix it on main'): RepoConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${where} is not JSON (${(e as Error).message}); ${fix}.`, 'config', { path: CONFIG_PATH, reason: 'not-json' });
  }
  const parsed = RepoConfigSchema.safeParse(value);
  if (!parsed.success) {
    const { message, data } = describeConfigIssue(RepoConfigSchema, parsed.error.issues[0]!);
    throw new UsageError(`${where}: ${message}; ${fix}.`, 'config', { path: CONFIG_PATH, ...data });
  }
  return parsed.data;
}

/** Renders a config for writing; refuses one the schema would refuse on reading. */
export function renderRepoConfig(config: RepoConfig): string {
  return JSON.stringify(RepoConfigSchema.parse(config), null, 2) + '\n';
}

/**
 * The config on main at `commit` (never a work branch's copy, which the lander controls).
 * Missing: {}. Only a file main does not have means "no config": any other failure (an object
 * git cannot read, a folder at the path) is git's (GitFailed), never a land without its checks.
 */
export async function readRepoConfig(git: Git, commit: string): Promise<RepoConfig> {
  const r = await git.run(['cat-file', 'blob', `${commit}:${CONFIG_PATH}`]);
  let text = r.stdout.toString();
  if (r.exitCode !== 0) {
    if ((await git.must(['ls-tree', '--name-only', commit, '--', CONFIG_PATH])) === '') return {};
    text = await git.must(['cat-file', 'blob', `${commit}:${CONFIG_PATH}`]);
  }
  return parseRepoConfig(text, `${CONFIG_PATH} on main at ${commit.slice(0, 12)}`);
}
