// What a verb declares to the CLI (its arguments, help, refusals) and what it answers.
import type { Argv } from 'yargs';
import type { Deps } from '../core/deps.js';
import type { RefusalCode } from '../core/refusal-table.js';
import type { Refusal } from '../core/refusals.js';

/** What a verb hands back to the CLI: the JSON answer and its human rendering. */
export interface Result {
  json: Record<string, unknown>;
  text: string;
  /** The process's exit code when the verb succeeded but passes on a command's own (abcd gate). */
  exitCode?: number;
  /** The verb already wrote its output (status --watch): report nothing more. */
  printed?: boolean;
  /**
   * The verb ran but did not do what was asked (a lane run that landed nothing): --json answers
   * this refusal and the process exits with its code, while a person still reads `text`.
   */
  refusal?: Refusal;
}

/** Options every verb accepts (--remote only where the verb declares usesRemote). */
export interface GlobalArgs {
  json: boolean;
  debug: boolean;
  remote?: string;
}

/**
 * One verb's CLI face: declares its arguments, turns them into a typed call to its domain
 * folder (src/claims/, src/land/, …), returns a Result. No behaviour here; import the domain
 * lazily inside run so that `abcd --help` loads nothing but the parser.
 */
export interface Command {
  command: string | readonly string[];
  describe: string;
  examples: ReadonlyArray<readonly [string, string]>;
  /**
   * The refusal codes this verb can answer with, besides usage and internal: its --help,
   * `abcd prime` and `abcd schema` list them (a test checks every verb declares them).
   */
  refusals?: readonly RefusalCode[];
  /** Replaces the exit-code lines of --help where the verb's codes differ (gate). */
  exitsHelp?: string;
  /** The verb talks to the shared remote: it takes --remote. */
  usesRemote?: boolean;
  /** For `abcd prime`: when an agent uses this verb. Verbs without it are the person's. */
  agentUse?: string;
  builder(y: Argv): Argv;
  run(args: Record<string, unknown> & GlobalArgs, deps: Deps, cli: CliContext): Promise<Result>;
}

/** What the CLI itself hands a verb: the command table, for the verbs that describe the others. */
export interface CliContext {
  readonly commands: readonly Command[];
}
