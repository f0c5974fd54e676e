// The shapes `abcd land` shares between its one beginning (land.ts) and its two strategies
// (strategy-git.ts, strategy-pull-request.ts). A file of its own, so nothing imports land.ts back.
import type { Claim } from '../records/claim.js';
import type { ItemKey } from '../records/item.js';
import type { Consumption } from '../records/receipt.js';
import type { Repo } from '../repo/repo.js';
import type { ClaimEntry, Snapshot } from '../repo/snapshot.js';
import type { CheckRun, CheckWatch, LandConfig } from './checks/checks.js';
import type { ClaimKeeper } from '../claims/claim-keeper.js';
import type { RecordWrite } from '../claims/write.js';
import type { SkippedEntry } from './queue/queue-order.js';
import type { LandTarget } from './target.js';
import type { Priority } from './queue/priority.js';
import type { IntegrationStrategy } from '../records/queue.js';
import type { LandingShape } from './landed-proof.js';
import type { ForgeLanded } from '../forges/forge.js';

export interface LandInput {
  item: ItemKey;
  branch?: string;
  waitMs: number;
  /** When the wait began (default: when land starts); a caller that started the land's first read early says when (early-read.ts). */
  startedAt?: number;
  /** How the work comes onto main, said by the caller (`--strategy`): wins over `land.strategy`. */
  strategy?: IntegrationStrategy;
  /** The caller's default when neither it nor `land.strategy` says (absent: rebase; lanes: squash). */
  defaultStrategy?: IntegrationStrategy;
  /** Its place in the land queue (default normal): land/priority.ts. */
  priority?: Priority;
  /** Keep the claim held after landing instead of marking it done. */
  keep: boolean;
  /** Set by a lane: its agent wrote the work (its checks never run unsandboxed unless attended and opted out). */
  lane?: { attended: boolean };
  /** Records written in the landing's own fenced push, given the landed tip (a lane's receipt). */
  alsoWrite?: (landedTip: string) => RecordWrite[];
  /** What a lane's cycle absorbed in flight: written as trailers into the commit that marks the item done. */
  consumed?: Consumption;
  /** Told when the checks run and what they print (a lane's log and phase). */
  checkWatch?: CheckWatch;
  /** A line the pull request's body carries on GitHub (an issue item's `Closes #n`). */
  pullRequestNote?: string;
}

/** Runs the checks under the machine's load gate; the gate's own wait ends by `untilMs`. */
export type GateRunner = <T>(label: string, untilMs: number, fn: () => Promise<T>) => Promise<T>;

/** What a land did; the forge's own part (GitHub's `github`) comes from its provider, as ForgeLanded. */
export interface LandResult extends ForgeLanded {
  item: string;
  main: string;
  tip: string;
  /** main's tip the landing was tested on (git forge only). */
  previousTip?: string;
  head: string;
  branch: string;
  /** Tests on main's tip; more than one when main moved under a test (git forge). */
  attempts: number;
  checks: CheckRun[];
  /** Checks that failed and then passed when run again (land.retries): flaky, not failed. */
  flaky?: { check: string; attempts: number }[];
  /** Where the checks ran: bubblewrap, or as the person (opted out, or no sandbox for their own entry). */
  checksSandbox?: 'bwrap' | 'none';
  /** Said when the checks ran unsandboxed for want of a sandbox. */
  warning?: string;
  enqueuedAt: number;
  waitedMs: number;
  claim: Claim['state'];
  /** Queue entries ahead whose claim this abcd could not read: skipped, not waited on. */
  skipped?: SkippedEntry[];
  /** With `land.speculate` above 1: how deep this entry was tested and the tests thrown away. */
  speculation?: { depth: number; position: number; retests: number };
  /**
   * With `land.batch` above 1: the batch it landed in. `by` is the item whose land tested and
   * landed it (this one, for the batch's head); `size` how many landed with it; the head also
   * says in how many check rounds, and which members were refused. `landedAs`: behind a merge
   * commit whose tree was tested, or as the item's one squash commit (whatever --strategy said).
   */
  batch?: { by: string; size: number; rounds?: number; refused?: string[]; landedAs?: LandingShape };
}

/** What the shared beginning found, handed to a strategy. */
export interface LandContext {
  /** The repository with git's full network timeout: a test, the landing push. */
  repo: Repo;
  /** The same repository whose network calls end by `deadline` (--wait): the waits and the reads before them. */
  waiting: Repo;
  /** The caller's input with the strategy settled (landStrategyOf). */
  input: LandInput & { strategy: IntegrationStrategy };
  gate: GateRunner;
  /** The item's short name and its claim ref. */
  item: string;
  ref: string;
  started: number;
  /** `--wait` ends here: the queue and gate waits, never a running test or the landing push. */
  deadline: number;
  target: LandTarget;
  /** The read the holder check was made on (records and main, one round trip). */
  snap: Snapshot;
  held: ClaimEntry;
  /** The land section of `.abcd/config.json` on main's tip. */
  config: LandConfig;
  /** The land section at a given main tip (read once per commit). */
  landConfig(mainTip: string): Promise<LandConfig>;
  /** Renews the claim and serializes every push under it, from the strategy's first push on. */
  keeper: ClaimKeeper;
}

/** What a strategy adds to the result the beginning builds, the forge's own part among it. */
export type Landed = ForgeLanded &
  Pick<
    LandResult,
    'tip' | 'previousTip' | 'attempts' | 'checks' | 'checksSandbox' | 'warning' | 'enqueuedAt' | 'skipped' | 'speculation' | 'batch'
  >;

/**
 * How one forge lands. `enter` makes the first fenced push under the claim (the queue entry,
 * or the work branch); the keeper renews from then on while `land` runs; `undo` cleans up after
 * a land that ended without landing (the keeper still runs).
 */
export interface LandStrategy<Entered> {
  /** Refusals that need no read of the remote, before anything else. */
  precheck?(repo: Repo): void;
  enter(ctx: LandContext): Promise<Entered>;
  land(ctx: LandContext, entered: Entered): Promise<Landed>;
  undo?(ctx: LandContext, entered: Entered, e: unknown): Promise<void>;
}
