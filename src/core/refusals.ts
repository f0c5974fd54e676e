// Every way a verb can end without doing what was asked. One class per reason, made from its
// row in refusal-table.ts: the class names the code, the row gives its exit code and the type
// of its data. The message says what happened and what to do next; src/cli/report.ts renders it.

import type { RefusalData, UsageArgs, UsageErrorData, UsageKind } from './refusal-data.js';
import { REFUSALS, type RefusalClassCode, type RefusalDataOf, type RefusalExitOf } from './refusal-table.js';
export type * from './refusal-data.js';
export type { RefusalClassCode, RefusalCode, RefusalDataOf } from './refusal-table.js';

/**
 * `D` is what `data` holds. It defaults to any record, so a class not made from the table
 * still compiles; data may be left out only when every field of `D` is optional.
 */
export abstract class Refusal<D extends RefusalData = RefusalData> extends Error {
  abstract readonly code: string;
  abstract readonly exit: 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 130;
  readonly data: D;

  constructor(message: string, ...[data]: Partial<D> extends D ? [data?: D] : [data: D]) {
    super(message);
    this.name = new.target.name;
    this.data = data ?? ({} as D);
  }
}

/** The base class of the refusal with this code: its code, exit and data type from the table. */
function refusal<C extends RefusalClassCode>(code: C) {
  abstract class FromTable extends Refusal<RefusalDataOf<C>> {
    readonly code: C = code;
    readonly exit = REFUSALS[code].exit as RefusalExitOf<C>;
  }
  return FromTable;
}

/** Bad input. Each site names the kind of input that was bad; the data is that kind's. */
export class UsageError extends refusal('usage') {
  readonly kind: UsageKind;
  constructor(message: string, ...[kind, data]: UsageArgs) {
    super(message, (data ?? {}) as UsageErrorData);
    this.kind = kind;
  }
}

/** The item is claimed by another session. */
export class Held extends refusal('held') {}

/** The act needs a claim this session never held. */
export class NotHolder extends refusal('not-holder') {}

/** The person's reservation cap is reached. */
export class CapReached extends refusal('cap-reached') {}

/** An expired claim this session has not yet watched for the takeover delay. */
export class TakeoverTooSoon extends refusal('takeover-too-soon') {}

/** The item's work has landed (claim state done); reserving it again needs --reopen. */
export class Landed extends refusal('landed') {}

/** The work branch has no commits beyond main: there is nothing to land. */
export class NothingToLand extends refusal('nothing-to-land') {}

/** A rebase or merge that cannot be done without a person. */
export class Conflict extends refusal('conflict') {}

/**
 * A push aimed at a branch abcd never moves for it: the main branch (only land writes it), a
 * record branch under abcd/, a branch another claim recorded, or a rewrite it may not make.
 * data.reason says which; data.branch names the branch.
 */
export class BranchRefused extends refusal('branch-refused') {}

/** The act needs a held claim, and this session itself already released or landed it. */
export class ClaimEnded extends refusal('claim-ended') {}

/** A configured check failed. */
export class CheckFailed extends refusal('check-failed') {}
export class SecretInChange extends refusal('secret-in-change') {}

/** The lane's agent program cannot be found: a missing CLI or a mistyped path, before anything is claimed. */
export class AgentNotFound extends refusal('agent-not-found') {}

/** A forge answered 409/422: the act conflicts with the forge's state. */
export class ForgeRejected extends refusal('forge-rejected') {}

/** The computer's model budget pool is at or below zero: no new lane cycle starts. */
export class BudgetExhausted extends refusal('budget-exhausted') {}

/** An item file on main that cannot be read (front matter, dependencies, name); the others still read. */
export class ItemInvalid extends refusal('item-invalid') {}

/** A wait reached its deadline. data names what was waited on and for how long. */
export class DeadlineReached extends refusal('deadline') {}

/** This session held the claim and its tip moved on. */
export class Fenced extends refusal('fenced') {}

/** A record is written by a newer abcd than this one. */
export class RecordTooNew extends refusal('record-too-new') {}

/** Unsafe environment or credentials. */
export class UnsafeEnvironment extends refusal('unsafe-environment') {}

/** This computer's clock disagrees with the record writers' past the bound: no clock-based act (ADR 0017). */
export class ClockSkewed extends refusal('clock-skewed') {}

/** Stopped by a signal (SIGINT, SIGTERM) after undoing what it could; 130 as shells report it. */
export class Interrupted extends refusal('interrupted') {}

/** The remote or forge could not be reached, or answered garbage. */
export class RemoteUnavailable extends refusal('remote-unavailable') {}

/** A record on the remote that cannot be read: not JSON, wrong shape, oversized. */
export class RecordInvalid extends refusal('record-invalid') {
  constructor(message: string, data: Omit<RecordInvalidData, 'outcome'> & { outcome?: RecordInvalidData['outcome'] }) {
    super(message, { outcome: 'unchanged', ...data });
  }
}

/**
 * A local git command failed: a broken object store, a worktree that cannot be added, a diff
 * without a merge base (a shallow clone). The clone or git itself needs a person, so it is not
 * a bug in abcd (exit 1) nor a coordination refusal (exit 3): its own exit, 9 (ADR 0028).
 * isomorphic-git's CommandFailed: the arguments, git's exit code and its stderr, sanitized.
 */
export class GitFailed extends refusal('git-failed') {}

/** A follow-up request from a session the lane does not take requests from (lanes.requesters). */
export class NotRequester extends refusal('not-requester') {}

/** A lane run whose cycles did not land (the agent failed, changed nothing, or the work was deferred). */
export class NotLanded extends refusal('not-landed') {}
/** An approval of a lane's protected change by anyone but the person (ADR 0103). */
export class NotApproved extends refusal('not-approved') {}
/** A lane under a config whose loosening of the sandbox the person did not vouch for (ADR 0104). */
export class ConfigUnsigned extends refusal('config-unsigned') {}

/** Objects of the agent's work (committed or left in its worktree) that git's strict checks refuse: nothing of it lands. */
export class AgentObjectsRefused extends refusal('agent-objects-refused') {}
/** The agent's change is past the repository's lanes.maxChangeBytes or lanes.maxFiles: nothing of it is pushed. */
export class ChangeTooLarge extends refusal('change-too-large') {}

export function isRefusal(e: unknown): e is Refusal {
  return e instanceof Refusal;
}

// Each refusal's data type by the name the code base reads it under.
export type HeldData = RefusalDataOf<'held'>;
export type NotHolderData = RefusalDataOf<'not-holder'>;
export type CapReachedData = RefusalDataOf<'cap-reached'>;
export type TakeoverTooSoonData = RefusalDataOf<'takeover-too-soon'>;
export type LandedData = RefusalDataOf<'landed'>;
export type NothingToLandData = RefusalDataOf<'nothing-to-land'>;
export type ConflictData = RefusalDataOf<'conflict'>;
export type BranchRefusedData = RefusalDataOf<'branch-refused'>;
export type ClaimEndedData = RefusalDataOf<'claim-ended'>;
export type CheckFailedData = RefusalDataOf<'check-failed'>;
export type ForgeRejectedData = RefusalDataOf<'forge-rejected'>;
export type BudgetExhaustedData = RefusalDataOf<'budget-exhausted'>;
export type ItemInvalidData = RefusalDataOf<'item-invalid'>;
export type DeadlineReachedData = RefusalDataOf<'deadline'>;
export type FencedData = RefusalDataOf<'fenced'>;
export type RecordTooNewData = RefusalDataOf<'record-too-new'>;
export type UnsafeEnvironmentData = RefusalDataOf<'unsafe-environment'>;
export type ClockSkewedData = RefusalDataOf<'clock-skewed'>;
export type InterruptedData = RefusalDataOf<'interrupted'>;
export type RemoteUnavailableData = RefusalDataOf<'remote-unavailable'>;
export type RecordInvalidData = RefusalDataOf<'record-invalid'>;
export type GitFailedData = RefusalDataOf<'git-failed'>;
export type NotRequesterData = RefusalDataOf<'not-requester'>;
export type AgentObjectsRefusedData = RefusalDataOf<'agent-objects-refused'>;
export type ChangeTooLargeData = RefusalDataOf<'change-too-large'>;
