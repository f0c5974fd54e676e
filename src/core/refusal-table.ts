// Every refusal abcd can answer with, declared once: its code, its exit code (the README's
// "Exit codes"), what it means, what an agent should do about it, and the type of its `data` (the
// `--json` contract, ADR 0043). The classes in refusals.ts, each verb's --help, `abcd prime`,
// `abcd schema` and the type test read this table; a new refusal is one row here, then a
// class line in refusals.ts naming its code.
// A field every construction site passes is required; one only some pass is optional. Object
// types, not interfaces: an interface has no implicit index signature, so it would not fit
// RefusalData. Shared parts of the data types are in refusal-data.ts.
import type { ClaimView, GateHolder, GithubSaid, Outcome, RefusalData, StandingView, UsageErrorData } from './refusal-data.js';

/** A row's data type. It lives in the type only: at run time the field is undefined. */
function shape<D extends RefusalData>(): D {
  return undefined as unknown as D;
}

export const REFUSALS = {
  usage: {
    exit: 2,
    means: 'the command line or a value in it is wrong',
    todo: 'fix the arguments (abcd <verb> --help); retrying unchanged will not help',
    data: shape<UsageErrorData>(),
  },
  held: {
    exit: 3,
    means: 'another session holds the item',
    todo: 'pick another item, or wait with --wait <duration>',
    data: shape<Partial<ClaimView> & { item: string; ref: string; expiresInMs?: number }>(),
  },
  'not-holder': {
    exit: 3,
    means: 'this session does not hold the claim the act needs',
    todo: 'abcd reserve <item> first',
    data: shape<StandingView & { session: string }>(),
  },
  'cap-reached': {
    exit: 3,
    means: "the person's reservation cap is reached",
    todo: 'release an item you hold, or ask the person; never change settings yourself',
    data: shape<{ person: string; cap: number; held: string[] }>(),
  },
  'takeover-too-soon': {
    exit: 3,
    means: 'the claim expired but this clone has not watched it long enough',
    todo: 'run again after data.takeableAt, or use --wait',
    data: shape<ClaimView & { takeableAt: string; takeableInMs: number }>(),
  },
  landed: {
    exit: 3,
    means: "the item's work has already landed",
    todo: 'pick another item; --reopen only if the person asked for more work on it',
    data: shape<{
      item: string;
      ref: string;
      state: string;
      landedAt: string;
      main: string | null;
      commit: string | null;
      holder: string;
    }>(),
  },
  'nothing-to-land': {
    exit: 3,
    means: 'the work branch has no commits beyond main',
    todo: 'commit your work first, or name the branch that has it',
    data: shape<{ item: string; branch: string; head: string; main: string; mainTip: string }>(),
  },
  'branch-refused': {
    exit: 3,
    means: "the push aims at a branch abcd never moves for you (main, abcd/*, another claim's)",
    todo: 'push your own work branch; only abcd land writes main',
    data: shape<{
      branch: string;
      /** Which rule: record-namespace, main, claimed-elsewhere, a rewrite... */
      reason: string;
      item?: string;
      main?: string;
      expected?: string | null;
      git?: string;
      claimedBy?: { item: string; ref: string; holder: string; gen: number; tip: string };
    }>(),
  },
  'claim-ended': {
    exit: 3,
    means: 'this session already released or landed the claim',
    todo: 'reserve it again (--reopen if it landed) only if there is more to do',
    data: shape<
      StandingView & {
        session: string;
        state: 'held' | 'released' | 'done';
        gen: number;
        tip: string;
        landed?: { main: string; tip: string };
      }
    >(),
  },
  'budget-exhausted': {
    exit: 3,
    means: "the computer's model budget is used up: no new lane cycle",
    todo: 'tell the person (abcd budget)',
    data: shape<{
      dir: string;
      /** The limits used up: tokens, usd (dollars), or both. */
      exhausted: ('tokens' | 'usd')[];
      remaining: number | null;
      pool: number | null;
      spent: number;
      remainingUsd: number | null;
      poolUsd: number | null;
      spentUsd: number;
      /** team: the team's pool on the remote (dir is then its ledger ref); absent: this computer's. */
      scope?: 'team';
      /** team: what cycles in flight on any computer hold reserved. */
      reserved?: number;
      reservedUsd?: number;
    }>(),
  },
  'not-landed': {
    exit: 3,
    means: 'the lane run ended without landing its work: the agent failed or changed nothing, or the work was deferred',
    todo: "read data.cycles (each item's outcome and reason); fix the item or the agent and build again, or tell the person",
    data: shape<{
      verb: 'build' | 'drain';
      /** The run's outcome: the latest cycle's (build), the worst of them (drain). */
      outcome: string;
      runId: string | null;
      /** The items whose cycle did not land, each with its outcome and why. */
      cycles: { item: string; outcome: string; reason: string | null }[];
      /** The whole run, as a run that landed answers it. */
      result: Record<string, unknown>;
    }>(),
  },
  'agent-objects-refused': {
    exit: 3,
    means: "git's strict checks refused an object of the agent's work (data.fsck); nothing of it landed",
    todo: 'fix what the agent left (often a .gitmodules), or tell the person; the lane does not retry it',
    data: shape<{ item: string; fsck: string[] }>(),
  },
  'change-too-large': {
    exit: 3,
    means: "the agent's change is past lanes.maxChangeBytes or lanes.maxFiles (data.biggest names its largest files); nothing was pushed",
    todo: 'make the change smaller, or ask the person to raise the limit in .abcd/config.json',
    data: shape<{
      item: string;
      over: 'maxChangeBytes' | 'maxFiles';
      bytes: number;
      files: number;
      maxChangeBytes: number;
      maxFiles: number;
      biggest: { path: string; bytes: number }[];
    }>(),
  },
  'not-requester': {
    exit: 3,
    means: 'the lane does not take requests from this session: not proven to come from its person or a requester the signed settings name',
    todo: 'ask the person (sign your commits, or be named with abcd settings requesters)',
    data: shape<{
      item: string;
      holder: string;
      requester: string;
      /** unsigned: no signature; not-requester: proven (or, unprotected, stated) as someone the lane does not take requests from. */
      reason?: 'unsigned' | 'not-requester';
      /** The principal the signature proves, when there is one. */
      signedBy?: string;
    }>(),
  },
  'agent-not-found': {
    exit: 3,
    means: "the lane's agent program is not on its PATH (or not executable where the command names it); nothing was claimed",
    todo: "tell the person: install the agent's CLI (the message says how), or set data.fix to the program's path",
    data: shape<{
      /** The program as the shell reads the command's first word. */
      word: string;
      /** The runtime's name (lanes.runtime). */
      runtime: string;
      /** The config key or flag that names the program. */
      fix: string;
      /** How to install the runtime's CLI, for a built-in runtime. */
      install?: string;
    }>(),
  },
  'item-invalid': {
    exit: 2,
    means: 'an item file on main cannot be read',
    todo: 'fix its front matter, or tell the person',
    data: shape<{ path: string; reason: string; key?: string }>(),
  },
  'clock-skewed': {
    exit: 7,
    means: "this computer's clock disagrees with the records past the bound",
    todo: 'tell the person to fix the clock; do not retry',
    data: shape<{ clock: string; act: string; writer: string; skewMs: { min: number; max: number }; limitMs: number }>(),
  },
  'git-failed': {
    exit: 9,
    means: 'a git command failed (data names it, its exit code and stderr)',
    todo: 'read data.stderr; fix the clone, or tell the person',
    data: shape<{ args: string[]; exitCode: number; stderr: string; dir: string; timedOut: boolean }>(),
  },
  conflict: {
    exit: 3,
    means: 'a rebase, merge or push conflicts with what others did',
    todo: 'bring your branch up to date with main, resolve, and land again',
    data: shape<{
      item?: string;
      ref?: string;
      branch?: string;
      head?: string;
      mainTip?: string;
      files?: string[];
      strategy?: 'rebase' | 'merge' | 'squash';
      rejected?: { ref: string; reason: string }[];
      expected?: string;
      actual?: string | null;
    }>(),
  },
  'check-failed': {
    exit: 3,
    means: 'a configured land check failed; nothing landed',
    todo: 'read data.check (the command) and data.output (its last output), fix the work, push and land again',
    data: shape<{
      check: string;
      exitCode: number;
      timedOut: boolean;
      output: string;
      /** Runs of the failing check on this tree (more than 1 with land.retries). */
      attempts?: number;
      /** Every check run so far, each with its attempt number. */
      runs?: { command: string; exitCode: number; durationMs: number; attempt: number }[];
    }>(),
  },
  'secret-in-change': {
    exit: 3,
    means: 'the work carries the exact value of a credential abcd holds (the model key, an App or forge token); nothing landed',
    todo: 'remove it from the named commit message, path or line (rewrite the branch), revoke the credential if it was pushed, land again',
    data: shape<{
      item: string;
      /** Which credential (its variable's name or "the App token"), never its value. */
      secret: string;
      where: 'message' | 'path' | 'line';
      commit?: string;
      path?: string;
    }>(),
  },
  'forge-rejected': {
    exit: 3,
    means: 'the forge refused the act (409/422)',
    todo: 'read the message; the forge state needs a look',
    data: shape<
      GithubSaid & { reason: string; number?: number; pullRequestId?: string; expectedHead?: string; head?: string; mergeable?: string }
    >(),
  },
  deadline: {
    exit: 4,
    means: 'a wait reached its deadline (data says what was waited on and how long)',
    todo: 'try another item, or wait longer',
    data: shape<{
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
      /** A lane run whose agent ran out of time: the run, as a run that landed answers it. */
      result?: Record<string, unknown>;
    }>(),
  },
  fenced: {
    exit: 5,
    means: 'your claim moved on: another session took it over',
    todo: 'stop work on it; abcd status shows the new holder',
    data: shape<StandingView & { expected?: string; actual?: string | null }>(),
  },
  'record-too-new': {
    exit: 6,
    means: 'a record was written by a newer abcd',
    todo: 'ask the person to upgrade abcd',
    data: shape<{ ref: string; kind: string; version: number; known: number }>(),
  },
  'unsafe-environment': {
    exit: 7,
    means: 'unsafe environment or credentials',
    todo: 'tell the person; do not work around it',
    data: shape<
      GithubSaid & {
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
      }
    >(),
  },
  'remote-unavailable': {
    exit: 8,
    means: 'the remote or forge could not be reached or answered garbage',
    todo: 'if data.outcome is unknown, run abcd status before retrying; else retry later',
    data: shape<
      GithubSaid & {
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
      }
    >(),
  },
  'record-invalid': {
    exit: 8,
    means: 'a record on the remote cannot be read',
    todo: 'tell the person (abcd status lists it under refused)',
    data: shape<{
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
    }>(),
  },
  'not-approved': {
    exit: 7,
    means: "an approval of a lane's protected change that the person did not sign",
    todo: 'only the person approves (abcd land <item> --approve <run>, signed with a key in their allowed-signers list); tell them',
    data: shape<{
      item: string;
      run: string;
      /** lane: asked under a lane; no-signers: the person keeps no list; not-signed / not-allowed: the signature is missing or not by a listed key. */
      reason: 'lane' | 'no-signers' | 'not-signed' | 'not-allowed';
      signers: string;
      git?: string;
    }>(),
  },
  'config-unsigned': {
    exit: 7,
    means: '.abcd/config.json on main loosens the sandbox in a commit the person neither signed nor approved',
    todo: 'tell the person; the lane runs again once they sign or approve the change, or revert it',
    data: shape<{
      /** The loosened key, as the config writes it (land.sandbox, lanes.bind...). */
      key: string;
      /** The commit on main whose config first loosened it, and the person-vouched commit compared with (null: none, the defaults). */
      commit: string;
      baseline: string | null;
      signers: string;
    }>(),
  },
  interrupted: {
    exit: 130,
    means: 'stopped by a signal after undoing what it could',
    todo: 'run the verb again when you mean to',
    data: shape<{ item?: string; result?: Record<string, unknown> }>(),
  },
  // Not a refusal: anything else thrown. report.ts answers it with this code and no data.
  internal: { exit: 1, means: 'a bug in abcd', todo: 'report it with the --debug output', data: shape<Record<string, never>>() },
} as const;

export type RefusalCode = keyof typeof REFUSALS;

/** The codes a refusal class answers with: every row but internal. */
export type RefusalClassCode = Exclude<RefusalCode, 'internal'>;

/** What `data` holds for a code. */
export type RefusalDataOf<C extends RefusalCode> = (typeof REFUSALS)[C]['data'];

/** The exit code of a code. */
export type RefusalExitOf<C extends RefusalCode> = (typeof REFUSALS)[C]['exit'];
