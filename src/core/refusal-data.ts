// What each refusal carries in `data`: the `--json` contract (`{"ok":false,"refusal":{...,"data":{...}}}`),
// checked by the compiler at every construction site and every read (ADR 0043). A field every
// site passes is required; one only some pass is optional. Object types, not interfaces: an
// interface has no implicit index signature, so it would not fit RefusalData.
// A new field at a construction site goes here first; a new refusal class may leave its data
// untyped (RefusalData) until its sites settle.

export type RefusalData = Record<string, unknown>;

/** Whether a refused act may have changed the remote (DESIGN.md, exit 8). */
export type Outcome = 'unchanged' | 'unknown';

/** A claim as refusals name it: `Held`, `TakeoverTooSoon`, a reserve's `waitedOn`. */
type ClaimView = {
  item: string;
  ref: string;
  holder: string;
  gen: number;
  /** The claim record's tip (`tip` in Fenced, NotHolder and ClaimEnded: not yet one name). */
  claimTip: string;
  expiresAt: string;
};

/** The claim this session expected and what the remote has (`Fenced`, `NotHolder`, `ClaimEnded`). */
type StandingView = { item: string; ref: string; session?: string; holder?: string; state?: 'held' | 'released' | 'done'; tip?: string };

/** GitHub's own words for a refused call. */
type GithubSaid = { call?: string; status?: number; githubMessage?: string; graphqlErrors?: { type?: string; message: string }[] };

/** Bad input: its context varies per flag and per file, so other fields pass unchecked. */
export type UsageErrorData = RefusalData & {
  reason?: string;
  path?: string;
  key?: string;
  value?: string;
  allowed?: string[];
  item?: string;
  ref?: string;
  state?: string;
  branch?: string;
  main?: string;
  remote?: string;
  cwd?: string;
  name?: string;
  what?: string;
  ttl?: string;
  argv?: string[];
  command?: string;
  session?: string;
  tag?: string;
};

export type HeldData = Partial<ClaimView> & { item: string; ref: string; expiresInMs?: number };

export type NotHolderData = StandingView & { session: string };

/** The claim is done: reserving it again needs --reopen. */
export type LandedData = {
  item: string;
  ref: string;
  state: string;
  landedAt: string;
  main: string | null;
  commit: string | null;
  holder: string;
};

export type NothingToLandData = { item: string; branch: string; head: string; main: string; mainTip: string };

export type CapReachedData = { person: string; cap: number; held: string[] };

export type TakeoverTooSoonData = ClaimView & { takeableAt: string; takeableInMs: number };

export type ConflictData = {
  item?: string;
  ref?: string;
  branch?: string;
  head?: string;
  mainTip?: string;
  files?: string[];
  strategy?: 'rebase' | 'merge';
  rejected?: { ref: string; reason: string }[];
  expected?: string;
  actual?: string | null;
};

export type BranchRefusedData = {
  branch: string;
  /** Which rule: record-namespace, main, claimed-elsewhere, a rewrite... */
  reason: string;
  item?: string;
  main?: string;
  expected?: string | null;
  git?: string;
  claimedBy?: { item: string; ref: string; holder: string; gen: number; tip: string };
};

export type ClaimEndedData = StandingView & {
  session: string;
  state: 'held' | 'released' | 'done';
  gen: number;
  tip: string;
  landed?: { main: string; tip: string };
};

export type CheckFailedData = { check: string; exitCode: number; timedOut: boolean; output: string };

export type ForgeRejectedData = GithubSaid & {
  reason: string;
  number?: number;
  pullRequestId?: string;
  expectedHead?: string;
  head?: string;
  mergeable?: string;
};

export type BudgetExhaustedData = { dir: string; remaining: number; pool: number | null; spent: number };

export type ItemInvalidData = { path: string; reason: string; key?: string };

/** A gate holder as `abcd gate --status` names it. */
type GateHolder = { pid: number; ticket: number; command: string; since: number; forMs: number; childPid?: number };

export type DeadlineReachedData = {
  /** What was waited on: a name (load-gate, GitHub, ...) or the claim or queue entry itself. */
  waitedOn?: string | ClaimView | { item: string; ref: string; holder: string; head: string; queuedAt: string };
  waitedMs?: number;
  /** The wait asked for (reserve --wait). */
  waitMs?: number;
  item?: string;
  call?: string;
  outcome?: Outcome;
  path?: string;
  dir?: string;
  deadlineMs?: number;
  deadline?: string;
  remainingMs?: number;
  neededMs?: number;
  number?: number;
  inMergeQueue?: boolean | null;
  owners?: number[];
  gate?: string;
  slots?: number;
  ticket?: number;
  holders?: GateHolder[];
  ahead?: { pid: number; ticket: number; command: string }[];
  lockOwners?: { pid: number; start: string | null }[];
  attempts?: number;
  main?: string;
  position?: number;
};

export type FencedData = StandingView & { expected?: string; actual?: string | null };

export type RecordTooNewData = { ref: string; kind: string; version: number; known: number };

export type UnsafeEnvironmentData = GithubSaid & {
  /** Which rule; a few older sites do not say (see ADR 0043). */
  reason?: string;
  why?: string;
  fix?: string;
  path?: string;
  paths?: string[];
  dir?: string;
  uid?: number;
  expectedUid?: number;
  /** An octal string ("644"), except the load gate's folder, which gives the number. */
  mode?: string | number;
  host?: string;
  findings?: { place: string; kind: string; path?: string | undefined; variable?: string | undefined }[];
  unknown?: { kind: string; reason: string; path?: string }[];
  outOfSight?: string;
  oauthError?: string;
  permission?: string;
  has?: string | null;
  sandbox?: 'auto' | 'bwrap';
  remote?: string;
  outcome?: Outcome;
  git?: string;
  /** Whether git had credentials to offer a remote that asked for them (ux). */
  offered?: boolean;
  signers?: string;
  lane?: string;
};

export type ClockSkewedData = { clock: string; act: string; writer: string; skewMs: { min: number; max: number }; limitMs: number };

export type InterruptedData = { item?: string };

export type RemoteUnavailableData = GithubSaid & {
  outcome: Outcome;
  reason?: string;
  /** The tip a push tried to write when its outcome is unknown (claim-write adds it). */
  attemptedTip?: string;
  remote?: string;
  git?: string;
  deadline?: string;
  waitMs?: number;
  waitedMs?: number;
  limit?: 'primary' | 'secondary';
  resetAt?: string;
  number?: number;
  ref?: string;
  item?: string;
  failedRenewals?: number;
  lapsesAt?: string;
  lastError?: { code: string; message: string };
};

export type RecordInvalidData = {
  ref: string;
  reason: string;
  outcome: Outcome;
  issues?: string;
  bytes?: number;
  tip?: string;
  using?: string;
  item?: string;
  expected?: string;
  at?: number;
  readAt?: number;
  marginMs?: number;
};

export type GitFailedData = { args: string[]; exitCode: number; stderr: string; dir: string; timedOut: boolean };

export type NotRequesterData = {
  item: string;
  holder: string;
  requester: string;
  /** unsigned: no signature; not-requester: proven (or, unprotected, stated) as someone the lane does not take requests from. */
  reason?: 'unsigned' | 'not-requester';
  /** The principal the signature proves, when there is one. */
  signedBy?: string;
};
