// Every way a verb can end without doing what was asked. One class per reason, each with
// a stable code, an exit code (DESIGN.md "Exit codes") and structured data. The message
// says what happened and what to do next; src/cli/report.ts renders it.

import type * as Data from './refusal-data.js';
import type { Outcome, RefusalData } from './refusal-data.js';
export type * from './refusal-data.js';

/**
 * `D` is what `data` holds (src/core/refusal-data.ts). It defaults to any record, so a class or site
 * not yet typed still compiles; data may be left out only when every field of `D` is optional.
 */
export abstract class Refusal<D extends RefusalData = RefusalData> extends Error {
  abstract readonly code: string;
  abstract readonly exit: 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 130;
  readonly data: D;

  constructor(message: string, ...[data]: {} extends D ? [data?: D] : [data: D]) {
    super(message);
    this.name = new.target.name;
    this.data = data ?? ({} as D);
  }
}

export class UsageError extends Refusal<Data.UsageErrorData> {
  readonly code = 'usage';
  readonly exit = 2;
}

/** The item is claimed by another session. */
export class Held extends Refusal<Data.HeldData> {
  readonly code = 'held';
  readonly exit = 3;
}

/** The act needs a claim this session never held. */
export class NotHolder extends Refusal<Data.NotHolderData> {
  readonly code = 'not-holder';
  readonly exit = 3;
}

/** The person's reservation cap is reached. */
export class CapReached extends Refusal<Data.CapReachedData> {
  readonly code = 'cap-reached';
  readonly exit = 3;
}

/** An expired claim this session has not yet watched for the takeover delay. */
export class TakeoverTooSoon extends Refusal<Data.TakeoverTooSoonData> {
  readonly code = 'takeover-too-soon';
  readonly exit = 3;
}

/** The item's work has landed (claim state done); reserving it again needs --reopen. */
export class Landed extends Refusal<Data.LandedData> {
  readonly code = 'landed';
  readonly exit = 3;
}

/** The work branch has no commits beyond main: there is nothing to land. */
export class NothingToLand extends Refusal<Data.NothingToLandData> {
  readonly code = 'nothing-to-land';
  readonly exit = 3;
}

/** A rebase or merge that cannot be done without a person. */
export class Conflict extends Refusal<Data.ConflictData> {
  readonly code = 'conflict';
  readonly exit = 3;
}

/**
 * A push aimed at a branch abcd never moves for it: the main branch (only land writes it), a
 * record branch under abcd/, a branch another claim recorded, or a rewrite it may not make.
 * data.reason says which; data.branch names the branch.
 */
export class BranchRefused extends Refusal<Data.BranchRefusedData> {
  readonly code = 'branch-refused';
  readonly exit = 3;
}

/** The act needs a held claim, and this session itself already released or landed it. */
export class ClaimEnded extends Refusal<Data.ClaimEndedData> {
  readonly code = 'claim-ended';
  readonly exit = 3;
}

/** A configured check failed. */
export class CheckFailed extends Refusal<Data.CheckFailedData> {
  readonly code = 'check-failed';
  readonly exit = 3;
}

/** A forge answered 409/422: the act conflicts with the forge's state. */
export class ForgeRejected extends Refusal<Data.ForgeRejectedData> {
  readonly code = 'forge-rejected';
  readonly exit = 3;
}

/** The computer's model budget pool is at or below zero: no new lane cycle starts. */
export class BudgetExhausted extends Refusal<Data.BudgetExhaustedData> {
  readonly code = 'budget-exhausted';
  readonly exit = 3;
}

/** An item file on main that cannot be read (front matter, dependencies, name); the others still read. */
export class ItemInvalid extends Refusal<Data.ItemInvalidData> {
  readonly code = 'item-invalid';
  readonly exit = 2;
}

/** A wait reached its deadline. data names what was waited on and for how long. */
export class DeadlineReached extends Refusal<Data.DeadlineReachedData> {
  readonly code = 'deadline';
  readonly exit = 4;
}

/** This session held the claim and its tip moved on. */
export class Fenced extends Refusal<Data.FencedData> {
  readonly code = 'fenced';
  readonly exit = 5;
}

/** A record is written by a newer abcd than this one. */
export class RecordTooNew extends Refusal<Data.RecordTooNewData> {
  readonly code = 'record-too-new';
  readonly exit = 6;
}

/** Unsafe environment or credentials (rule 4). */
export class UnsafeEnvironment extends Refusal<Data.UnsafeEnvironmentData> {
  readonly code = 'unsafe-environment';
  readonly exit = 7;
}

/** This computer's clock disagrees with the record writers' past the bound: no clock-based act (ADR 0017). */
export class ClockSkewed extends Refusal<Data.ClockSkewedData> {
  readonly code = 'clock-skewed';
  readonly exit = 7;
}

/** Stopped by a signal (SIGINT, SIGTERM) after undoing what it could; 130 as shells report it. */
export class Interrupted extends Refusal<Data.InterruptedData> {
  readonly code = 'interrupted';
  readonly exit = 130;
}

/** The remote or forge could not be reached, or answered garbage. */
export class RemoteUnavailable extends Refusal<Data.RemoteUnavailableData> {
  readonly code = 'remote-unavailable';
  readonly exit = 8;
}

/** A record on the remote that cannot be read: not JSON, wrong shape, oversized. */
export class RecordInvalid extends Refusal<Data.RecordInvalidData> {
  readonly code = 'record-invalid';
  readonly exit = 8;
  constructor(message: string, data: Omit<Data.RecordInvalidData, 'outcome'> & { outcome?: Outcome }) {
    super(message, { outcome: 'unchanged', ...data });
  }
}

/**
 * A local git command failed: a broken object store, a worktree that cannot be added, a diff
 * without a merge base (a shallow clone). The clone or git itself needs a person, so it is not
 * a bug in abcd (exit 1) nor a coordination refusal (exit 3): its own exit, 9 (ADR 0028).
 * isomorphic-git's CommandFailed: the arguments, git's exit code and its stderr, sanitized.
 */
export class GitFailed extends Refusal<Data.GitFailedData> {
  readonly code = 'git-failed';
  readonly exit = 9;
}

export function isRefusal(e: unknown): e is Refusal {
  return e instanceof Refusal;
}

/** A follow-up request the lane would not take: not proven to come from its person or a requester the settings name. */
export class NotRequester extends Refusal<Data.NotRequesterData> {
  readonly code = 'not-requester';
  readonly exit = 3;
}
