// The repository's `.abcd/config.json`: ONE schema, used by the code that reads it (land's
// checks, lanes) and the code that writes it (`abcd init`), so the two cannot drift. Every
// object is strict: a typo (`{"land":{"check":"npm test"}}`, `{"lnd":{}}`) is a refusal
// naming the key and the keys allowed, never a silently ignored setting.
import { z } from 'zod';
import { parseValue, safeParseValue } from '../core/schema-parse.js';
import type { Git } from '../git/git.js';
import { describeConfigIssue } from './config-issues.js';
import { UsageError } from '../core/refusals.js';
import { IntegrationStrategySchema } from '../records/queue.js';
import { ALLOW_ENTRY_HINT, parseAllowEntry } from '../machine/sandbox/network-allow.js';
import { FORGE_ITEMS_SHAPE } from '../forges/items-config.js';
import { RUNTIME_NAMES } from './runtime-names.js';
import { lazySchema } from '../core/lazy-schema.js';

export { DEFAULT_RUNTIME, RUNTIME_NAMES, type RuntimeName } from './runtime-names.js';

export const CONFIG_PATH = '.abcd/config.json';

// A duration as the CLI writes it: 500ms, 90s, 5m, 2h, 1d.
const Duration = lazySchema(() => z.string().regex(/^\d{1,12}(ms|s|m|h|d)$/, 'a duration such as 90s, 5m or 2h'));
// A variable name the agent's environment may take from the lane's (never a value).
const EnvName = lazySchema(() => z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name such as ANTHROPIC_API_KEY'));
// A path on the person's computer: absolute, or under their home as ~/...
const HostPath = lazySchema(() =>
  z
    .string()
    .max(4096)
    .regex(/^(?!.*(^|\/)\.\.(\/|$))(\/|~\/)/, 'an absolute path or one under your home such as ~/.local/share/claude'),
);

// Where a sandbox's egress proxy lets it connect: `host:port` or `*.domain:port`.
const AllowEntry = lazySchema(() =>
  z
    .string()
    .max(300)
    .refine((t) => parseAllowEntry(t) !== undefined, ALLOW_ENTRY_HINT),
);
const NetworkSection = lazySchema(() =>
  z.strictObject({
    /** The hosts the sandbox's egress proxy lets its code reach (default: none but a runtime's model API). */
    allow: z.array(AllowEntry).max(256).optional(),
  }),
);

export const LandSectionSchema = lazySchema(() =>
  z.strictObject({
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
     * How many live queue entries the head of the queue tests together as one stack (default 1).
     * A passing batch lands as one merge commit; a failing one is split to find the failing entries.
     */
    batch: z.number().int().min(1).max(16).optional(),
    /**
     * How long the head of a batch that is not full waits for more entries before it tests
     * (default 0: it tests what is queued). Worth a few seconds when sessions land together.
     */
    batchWait: Duration.optional(),
    /**
     * How checks run: `auto` (default) in bubblewrap when it works; `bwrap` always (refused
     * without it); `none` as the person, unsandboxed: their explicit opt-out, refused in an
     * unattended lane.
     */
    sandbox: z.enum(['auto', 'bwrap', 'none']).optional(),
    /** Names of variables a check gets on top of the allow-list (never tokens, ABCD_*, GIT_*, SSH_AUTH_SOCK). */
    env: z.array(EnvName).optional(),
    /**
     * A sandboxed check's network: `{"allow": [...]}` the hosts its egress proxy lets it reach
     * (default none); false: no way out of its loopback at all; true (older configs): the default.
     */
    network: z.union([z.boolean(), NetworkSection]).optional(),
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
  }),
);

/** The `codex` runtime: Codex's own `codex exec --json`, resumed per turn (it has no max-turns setting to offer). */
export const CodexSectionSchema = lazySchema(() =>
  z.strictObject({
    /** The program (default `codex` on the lane's PATH): a name on PATH or an absolute path. */
    program: z.string().min(1).max(4096).optional(),
    /** The model (`-m`); default: the seeded config.toml's. */
    model: z.string().min(1).max(200).optional(),
    /**
     * Codex's own sandbox for the commands its model runs, inside the lane's: `danger-full-access`
     * (default; the lane's sandbox is the boundary), `workspace-write` (its .git is read-only: the
     * agent cannot commit, abcd commits what it leaves), `read-only`.
     */
    sandbox: z.enum(['danger-full-access', 'workspace-write', 'read-only']).optional(),
    /** Extra arguments for every `codex exec` and `codex exec resume` (so `-c key=value` forms). */
    args: z.array(z.string().max(4096)).max(64).optional(),
    /** Names of variables Codex gets on top of OPENAI_BASE_URL and CODEX_HOME, and OPENAI_API_KEY unsandboxed (proxies, CA files). */
    env: z.array(EnvName).optional(),
    /**
     * A file on the lane's machine holding the model key (an absolute or ~/ path; the user's own,
     * mode 600): abcd reads it, its model gateway holds the key, and every sandbox hides the file.
     */
    keyFile: z.string().min(1).max(4096).optional(),
  }),
);

/** The `gemini` runtime: Gemini CLI headless (`-p`, `-o stream-json`), resumed per turn with `-r`. */
export const GeminiSectionSchema = lazySchema(() =>
  z.strictObject({
    /** The program (default `gemini` on the lane's PATH): a name on PATH or an absolute path. */
    program: z.string().min(1).max(4096).optional(),
    /** The model (`-m`); default: the CLI's own choice. */
    model: z.string().min(1).max(200).optional(),
    /** Extra arguments for every run, after the runtime's own (never the ones it sets itself). */
    args: z.array(z.string().max(4096)).max(64).optional(),
    /** Names of variables Gemini CLI gets on top of GOOGLE_GEMINI_BASE_URL, and of GEMINI_API_KEY where no gateway holds it (proxies, CA files). */
    env: z.array(EnvName).optional(),
  }),
);

// What the `claude` runtime runs: Claude Code headless. Every key is optional; the runtime's
// defaults are in src/lanes/runtimes/claude/claude-args.ts.
export const ClaudeSectionSchema = lazySchema(() =>
  z.strictObject({
    /** The program: a name on PATH or an absolute path (default `claude`). */
    program: z.string().min(1).max(4096).optional(),
    /** `--model`, e.g. claude-sonnet-4-5 (default: the CLI's own). */
    model: z.string().min(1).max(200).optional(),
    /** `--allowedTools`: the tools the agent may use without asking (it cannot ask: it is headless). */
    allowedTools: z.array(z.string().min(1).max(500)).max(100).optional(),
    /** `--max-turns`: model requests per turn before the CLI stops on its own. */
    maxTurns: z.number().int().positive().max(10_000).optional(),
    /** More arguments, after the runtime's own (never the ones it sets itself). */
    args: z.array(z.string().max(4096)).max(64).optional(),
    /** Names of variables the agent gets on top of lanes.env (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, a proxy...). */
    env: z.array(EnvName).optional(),
    /**
     * A file on the lane's machine holding the model key (an absolute or ~/ path; the user's own,
     * mode 600): abcd reads it, its model gateway holds the key, and every sandbox hides the file.
     */
    keyFile: z.string().min(1).max(4096).optional(),
  }),
);

export const LanesSectionSchema = lazySchema(() =>
  z.strictObject({
    /** The agent command a lane runs per cycle when `--agent` is not given. */
    agent: z.string().min(1).optional(),
    /** What runs the agent: `command` (default: the agent command), `claude` (Claude Code), `codex` or `gemini` (Gemini CLI). */
    runtime: z.enum(RUNTIME_NAMES).optional(),
    claude: ClaudeSectionSchema.optional(),
    codex: CodexSectionSchema.optional(),
    gemini: GeminiSectionSchema.optional(),
    sandbox: z.enum(['auto', 'bwrap', 'none']).optional(),
    /** Names of variables passed to the agent on top of the allow-list. */
    env: z.array(EnvName).optional(),
    /** The hosts the agent's egress proxy lets it reach besides its runtime's model API (default none). */
    network: NetworkSection.optional(),
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
    /** How long a run's local logs (under the clone's git dir) are kept after its last write (default 7d). */
    logRetention: Duration.optional(),
    /** Turns the agent gets, with a failing land check's output, to fix its work (default 1; 0: none). */
    fixChecks: z.number().int().nonnegative().max(10).optional(),
    /** Tokens a cycle reserves from the team budget before its agent starts (default: the median of recent cycles). */
    cycleReserve: z.number().int().positive().max(1e15).optional(),
    /** Dollars a cycle reserves from the team budget (default: the median of recent cycles). */
    cycleReserveUsd: z.number().nonnegative().max(1e8).optional(),
    /**
     * A webhook told of each event: the NAME of the variable that holds its URL in the lane's own
     * environment (the URL is a secret, never written here), and which events (default: all).
     */
    notify: z
      .strictObject({
        env: EnvName,
        events: z
          .array(z.enum(['landed', 'failed', 'needs-review', 'budget-exhausted', 'lost']))
          .max(5)
          .optional(),
      })
      .optional(),
  }),
);

export const ItemsSectionSchema = lazySchema(() => z.strictObject(FORGE_ITEMS_SHAPE));

export const RepoConfigSchema = lazySchema(() =>
  z.strictObject({
    land: LandSectionSchema.optional(),
    lanes: LanesSectionSchema.optional(),
    items: ItemsSectionSchema.optional(),
  }),
);

export type RepoConfig = z.infer<typeof RepoConfigSchema>;
export type LanesConfig = z.infer<typeof LanesSectionSchema>;
export type CodexConfig = z.infer<typeof CodexSectionSchema>;
export type ClaudeConfig = z.infer<typeof ClaudeSectionSchema>;
export type GeminiConfig = z.infer<typeof GeminiSectionSchema>;

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
  const parsed = safeParseValue(RepoConfigSchema, value);
  if (!parsed.success) {
    const { message, data } = describeConfigIssue(RepoConfigSchema, parsed.error.issues[0]!);
    throw new UsageError(`${where}: ${message}; ${fix}.`, 'config', { path: CONFIG_PATH, ...data });
  }
  return parsed.data;
}

/** Renders a config for writing; refuses one the schema would refuse on reading. */
export function renderRepoConfig(config: RepoConfig): string {
  return JSON.stringify(parseValue(RepoConfigSchema, config), null, 2) + '\n';
}

/** The names a tree's body lists ("<mode> <name>\0<raw id>" each). */
function treeNames(body: Buffer, idBytes: number): Set<string> {
  const names = new Set<string>();
  for (let pos = 0; pos < body.length;) {
    const nul = body.indexOf(0, pos);
    if (nul < 0) break;
    names.add(body.toString('utf8', body.indexOf(32, pos) + 1, nul));
    pos = nul + 1 + idBytes;
  }
  return names;
}

/**
 * The config on main at `commit` (never a work branch's copy, which the lander controls).
 * Missing: {}. Only a file main does not have means "no config": any other failure (an object
 * git cannot read, a folder at the path) is git's (GitFailed), never a land without its checks.
 */
export async function readRepoConfig(git: Git, commit: string): Promise<RepoConfig> {
  const where = `${CONFIG_PATH} on main at ${commit.slice(0, 12)}`;
  // One process answers the file and, when it is absent, the trees that show it truly is.
  const [dir, name] = CONFIG_PATH.split('/') as [string, string];
  const read = await git.objects.readObjects([`${commit}:${CONFIG_PATH}`, `${commit}^{tree}`, `${commit}:${dir}`]);
  if (read.ok) {
    const [file, root, folder] = read.value;
    if (file?.type === 'blob') return parseRepoConfig(file.content.toString(), where);
    const idBytes = commit.length / 2;
    if (!file && root?.type === 'tree' && !treeNames(root.content, idBytes).has(dir)) return {};
    if (!file && folder?.type === 'tree' && !treeNames(folder.content, idBytes).has(name)) return {};
  }
  // Anything else (a folder at the path, a commit git cannot read): asked again the long way, whose failures are git's.
  const blob = await git.objects.readBlobAt(commit, CONFIG_PATH);
  let text = blob?.toString() ?? '';
  if (!blob) {
    if ((await git.objects.mustLsTree(commit, { paths: [CONFIG_PATH] })).length === 0) return {};
    text = await git.objects.mustReadText(`${commit}:${CONFIG_PATH}`);
  }
  return parseRepoConfig(text, where);
}
