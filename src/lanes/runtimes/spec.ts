// What one runtime is to abcd besides the session it opens (runtime.ts): how it reads its part
// of `lanes`, which program the sandbox must show and what else of its install, which variables
// its agent takes, where its CLI comes from and whether abcd's model gateway carries its key,
// which folders of its own every sandbox hides, and how its stream reads in a transcript. Each
// runtime is one folder with one spec; the registry (index.ts) is the only place that lists them,
// and no code outside the runtimes asks which one it is.
import type { Env } from '../../core/deps.js';
import { UsageError } from '../../core/refusals.js';
import type { Bind } from '../../machine/sandbox/bwrap.js';
import type { LanesConfig, RuntimeName } from '../../repo/config.js';
import type { RuntimeInstall } from './installs.js';
import type { AgentActivity, Runtime } from './runtime.js';

/** A runtime's settings for one lane run, read from main's config and the command line. */
export interface RuntimeSetup {
  /** The command runtime's shell command; '' for a runtime that runs its own program. */
  agent: string;
  /** What the agent's sandbox must show: the command (its first word) or the runtime's program. */
  program: string;
  /** Every variable name the config passes the agent besides lanes.env: what the key check reads. */
  passed: readonly string[];
  /** The names the cycle's environment takes besides lanes.env (a runtime may pick its own instead). */
  envNames: readonly string[];
  /** The config key and value of a file that holds the model key (`lanes.<runtime>.keyFile`), when one is set. */
  keyFile?: { key: string; setting: string };
  /**
   * The runtime this lane run opens its sessions with; `laneEnv` is abcd's own environment, and
   * `heldKey` the key read from `keyFile`, which the model gateway holds in place of the variable's.
   */
  runtime(laneEnv: Env, heldKey?: string): Runtime;
}

/** A reader of a runtime's stream that tells what the agent does, line by line. */
export interface ActivityReader {
  line(text: string): void;
}

export interface RuntimeSpec {
  readonly name: RuntimeName;
  /** Its CLI, for a runtime that runs one: the package abcd is tested with, its model key, the gateway. */
  readonly install?: RuntimeInstall;
  /** Variables that name a config folder of its CLI (a team's config, tokens): hidden in every sandbox. */
  readonly homeVariables: readonly string[];
  /**
   * Reads and checks its part of `lanes` before anything is claimed. `agent` is --agent or
   * lanes.agent, `agentFlag` --agent alone. A UsageError says what it cannot run.
   */
  setup(lanes: LanesConfig, o: { agent?: string | undefined; agentFlag?: string | undefined }): RuntimeSetup;
  /** What else of its install the sandbox must show beside the folders of its program. */
  programBinds?(binds: readonly Bind[], secret: readonly string[]): Bind[];
  /** Its part of `lanes`, as `abcd init --runtime` writes it (an existing block kept). */
  initBlock(lanes: LanesConfig): Partial<LanesConfig>;
  /** The transcript lines of one JSON event of its stream; undefined when the event is not of its stream. */
  transcriptLines?(e: Record<string, unknown>): string[] | undefined;
  /** A reader of its stream for the newest activity in a log. */
  activityReader?(onActivity: (a: AgentActivity) => void): ActivityReader;
}

/** A runtime that runs its own program refuses --agent, which is the command runtime's. */
export function refuseAgentFlag(name: RuntimeName, agentFlag: string | undefined): void {
  if (agentFlag === undefined) return;
  throw new UsageError(`--agent is the command runtime's; --runtime ${name} runs its own program (set it in lanes.${name}).`, 'argument');
}
