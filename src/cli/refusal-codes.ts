// Every refusal code abcd can answer with, its exit code, and what an agent should do about
// it. `abcd <verb> --help`, `abcd prime` and the JSON Schema read this one table; a test keeps
// it in step with the classes in src/core/refusals.ts.

export interface RefusalCode {
  exit: number;
  /** What happened, in a few words. */
  means: string;
  /** What an agent should do next. */
  todo: string;
}

export const REFUSAL_CODES = {
  usage: {
    exit: 2,
    means: 'the command line or a value in it is wrong',
    todo: 'fix the arguments (abcd <verb> --help); retrying unchanged will not help',
  },
  held: { exit: 3, means: 'another session holds the item', todo: 'pick another item, or wait with --wait <duration>' },
  'not-holder': { exit: 3, means: 'this session does not hold the claim the act needs', todo: 'abcd reserve <item> first' },
  'cap-reached': {
    exit: 3,
    means: "the person's reservation cap is reached",
    todo: 'release an item you hold, or ask the person; never change settings yourself',
  },
  'takeover-too-soon': {
    exit: 3,
    means: 'the claim expired but this clone has not watched it long enough',
    todo: 'run again after data.takeableAt, or use --wait',
  },
  landed: {
    exit: 3,
    means: "the item's work has already landed",
    todo: 'pick another item; --reopen only if the person asked for more work on it',
  },
  'nothing-to-land': {
    exit: 3,
    means: 'the work branch has no commits beyond main',
    todo: 'commit your work first, or name the branch that has it',
  },
  'branch-refused': {
    exit: 3,
    means: "the push aims at a branch abcd never moves for you (main, abcd/*, another claim's)",
    todo: 'push your own work branch; only abcd land writes main',
  },
  'claim-ended': {
    exit: 3,
    means: 'this session already released or landed the claim',
    todo: 'reserve it again (--reopen if it landed) only if there is more to do',
  },
  'budget-exhausted': {
    exit: 3,
    means: "the computer's model budget is used up: no new lane cycle",
    todo: 'tell the person (abcd budget)',
  },
  'agent-objects-refused': {
    exit: 3,
    means: "git's strict checks refused an object of the agent's work (data.fsck); nothing of it landed",
    todo: 'fix what the agent left (often a .gitmodules), or tell the person; the lane does not retry it',
  },
  'change-too-large': {
    exit: 3,
    means: "the agent's change is past lanes.maxChangeBytes or lanes.maxFiles (data.biggest names its largest files); nothing was pushed",
    todo: 'make the change smaller, or ask the person to raise the limit in .abcd/config.json',
  },
  'not-requester': { exit: 3, means: 'the lane does not take requests from this session', todo: 'ask the person' },
  'item-invalid': { exit: 2, means: 'an item file on main cannot be read', todo: 'fix its front matter, or tell the person' },
  'clock-skewed': {
    exit: 7,
    means: "this computer's clock disagrees with the records past the bound",
    todo: 'tell the person to fix the clock; do not retry',
  },
  'git-failed': {
    exit: 9,
    means: 'a git command failed (data names it, its exit code and stderr)',
    todo: 'read data.stderr; fix the clone, or tell the person',
  },
  conflict: {
    exit: 3,
    means: 'a rebase, merge or push conflicts with what others did',
    todo: 'bring your branch up to date with main, resolve, and land again',
  },
  'check-failed': {
    exit: 3,
    means: 'a configured land check failed; nothing landed',
    todo: 'read data.checks, fix the work, push and land again',
  },
  'forge-rejected': { exit: 3, means: 'the forge refused the act (409/422)', todo: 'read the message; the forge state needs a look' },
  deadline: {
    exit: 4,
    means: 'a wait reached its deadline (data says what was waited on and how long)',
    todo: 'try another item, or wait longer',
  },
  fenced: {
    exit: 5,
    means: 'your claim moved on: another session took it over',
    todo: 'stop work on it; abcd status shows the new holder',
  },
  'record-too-new': { exit: 6, means: 'a record was written by a newer abcd', todo: 'ask the person to upgrade abcd' },
  'unsafe-environment': { exit: 7, means: 'unsafe environment or credentials', todo: 'tell the person; do not work around it' },
  'remote-unavailable': {
    exit: 8,
    means: 'the remote or forge could not be reached or answered garbage',
    todo: 'if data.outcome is unknown, run abcd status before retrying; else retry later',
  },
  'record-invalid': {
    exit: 8,
    means: 'a record on the remote cannot be read',
    todo: 'tell the person (abcd status lists it under refused)',
  },
  interrupted: { exit: 130, means: 'stopped by a signal after undoing what it could', todo: 'run the verb again when you mean to' },
  internal: { exit: 1, means: 'a bug in abcd', todo: 'report it with the --debug output' },
} as const satisfies Record<string, RefusalCode>;

export type RefusalCodeName = keyof typeof REFUSAL_CODES;

/** Codes any verb can give: a bad command line, and a bug. */
export const EVERY_VERB: readonly RefusalCodeName[] = ['usage', 'internal'];

/** Codes every verb that reads the records can give. */
export const READS_RECORDS: readonly RefusalCodeName[] = ['remote-unavailable', 'record-invalid', 'record-too-new', 'unsafe-environment'];

/** The exit-code lines of a verb's --help, from the codes it can give. */
export function describeExits(codes: readonly RefusalCodeName[]): string {
  const all = [...new Set<RefusalCodeName>([...codes, ...EVERY_VERB])];
  const byExit = new Map<number, RefusalCodeName[]>();
  for (const c of all) byExit.set(REFUSAL_CODES[c].exit, [...(byExit.get(REFUSAL_CODES[c].exit) ?? []), c]);
  const lines = [...byExit.entries()].sort((a, b) => a[0] - b[0]).map(([exit, cs]) => `  ${String(exit).padStart(3)}  ${cs.join(', ')}`);
  return ['Exit codes (refusal codes in --json):', '    0  done', ...lines].join('\n');
}
