// Every way a verb can end without doing what was asked. One class per reason, each with
// a stable code, an exit code (DESIGN.md "Exit codes") and structured data. The message
// says what happened and what to do next; src/cli/report.ts renders it.

export type RefusalData = Record<string, unknown>;

export abstract class Refusal extends Error {
  abstract readonly code: string;
  abstract readonly exit: 2 | 3 | 4 | 5 | 6 | 7 | 8 | 130;
  readonly data: RefusalData;

  constructor(message: string, data: RefusalData = {}) {
    super(message);
    this.name = new.target.name;
    this.data = data;
  }
}

export class UsageError extends Refusal {
  readonly code = 'usage';
  readonly exit = 2;
}

/** The item is claimed by another session. */
export class Held extends Refusal {
  readonly code = 'held';
  readonly exit = 3;
}

/** The act needs a claim this session never held. */
export class NotHolder extends Refusal {
  readonly code = 'not-holder';
  readonly exit = 3;
}

/** The person's reservation cap is reached. */
export class CapReached extends Refusal {
  readonly code = 'cap-reached';
  readonly exit = 3;
}

/** An expired claim this session has not yet watched for the takeover delay. */
export class TakeoverTooSoon extends Refusal {
  readonly code = 'takeover-too-soon';
  readonly exit = 3;
}

/** The item's work has landed (claim state done); reserving it again needs --reopen. */
export class Landed extends Refusal {
  readonly code = 'landed';
  readonly exit = 3;
}

/** The work branch has no commits beyond main: there is nothing to land. */
export class NothingToLand extends Refusal {
  readonly code = 'nothing-to-land';
  readonly exit = 3;
}

/** A rebase or merge that cannot be done without a person. */
export class Conflict extends Refusal {
  readonly code = 'conflict';
  readonly exit = 3;
}

/** A configured check failed. */
export class CheckFailed extends Refusal {
  readonly code = 'check-failed';
  readonly exit = 3;
}

/** A forge answered 409/422: the act conflicts with the forge's state. */
export class ForgeRejected extends Refusal {
  readonly code = 'forge-rejected';
  readonly exit = 3;
}

/** A wait reached its deadline. data names what was waited on and for how long. */
export class DeadlineReached extends Refusal {
  readonly code = 'deadline';
  readonly exit = 4;
}

/** This session held the claim and its tip moved on. */
export class Fenced extends Refusal {
  readonly code = 'fenced';
  readonly exit = 5;
}

/** A record is written by a newer abcd than this one. */
export class RecordTooNew extends Refusal {
  readonly code = 'record-too-new';
  readonly exit = 6;
}

/** Unsafe environment or credentials (rule 4). */
export class UnsafeEnvironment extends Refusal {
  readonly code = 'unsafe-environment';
  readonly exit = 7;
}

/** Stopped by a signal (SIGINT, SIGTERM) after undoing what it could; 130 as shells report it. */
export class Interrupted extends Refusal {
  readonly code = 'interrupted';
  readonly exit = 130;
}

export type Outcome = 'unchanged' | 'unknown';

/** The remote or forge could not be reached, or answered garbage. */
export class RemoteUnavailable extends Refusal {
  readonly code = 'remote-unavailable';
  readonly exit = 8;
  constructor(message: string, data: RefusalData & { outcome: Outcome }) {
    super(message, data);
  }
}

/** A record on the remote that cannot be read: not JSON, wrong shape, oversized. */
export class RecordInvalid extends Refusal {
  readonly code = 'record-invalid';
  readonly exit = 8;
  constructor(message: string, data: RefusalData & { ref: string }) {
    super(message, { outcome: 'unchanged', ...data });
  }
}

export function isRefusal(e: unknown): e is Refusal {
  return e instanceof Refusal;
}
