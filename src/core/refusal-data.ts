// The parts the refusal data types in refusal-table.ts share, and the kinds of bad input a
// usage refusal names. Checked by the compiler at every construction site and every read
// (ADR 0043).

export type RefusalData = Record<string, unknown>;

/** Whether a refused act may have changed the remote (exit 8 when it may have). */
export type Outcome = 'unchanged' | 'unknown';

/** A claim as refusals name it: `Held`, `TakeoverTooSoon`, a reserve's `waitedOn`. */
export type ClaimView = {
  item: string;
  ref: string;
  holder: string;
  gen: number;
  /** The claim record's tip (`tip` in Fenced, NotHolder and ClaimEnded: not yet one name). */
  claimTip: string;
  expiresAt: string;
};

/** The claim this session expected and what the remote has (`Fenced`, `NotHolder`, `ClaimEnded`). */
export type StandingView = {
  item: string;
  ref: string;
  session?: string;
  holder?: string;
  state?: 'held' | 'released' | 'done';
  tip?: string;
};

/** GitHub's own words for a refused call. */
export type GithubSaid = { call?: string; status?: number; githubMessage?: string; graphqlErrors?: { type?: string; message: string }[] };

/** A gate holder as `abcd gate --status` names it. */
export type GateHolder = { pid: number; ticket: number; command: string; since: number; forMs: number; childPid?: number };

/**
 * Bad input, by what was bad: every usage refusal names its kind (`new UsageError(message,
 * 'branch', { branch })`) and its data is that kind's. The kind is the refusal's own
 * (`UsageError.kind`), not a field of `data`: the JSON of a usage refusal is what it was.
 */
export type UsageKinds = {
  /** An argument or flag the message describes in full: nothing more to name. */
  argument: Record<string, never>;
  /** The item argument is missing, or is no item name. */
  item: { item?: string; reason: string };
  /** The item has no file on main, or no such issue is an item. */
  'no-item': { item: string; reason?: string };
  /** The item's source part names a source abcd does not know or this repository has not set up. */
  'item-source': { item: string; source: string; reason: 'unknown' | 'not-configured' | 'bad-key' };
  /** `abcd items add/close`: the item file cannot be written as asked (already there, too big, a dependency missing, no status line). */
  'item-file': { item: string; path: string; reason: 'exists' | 'too-large' | 'missing-dependency' | 'status-line'; missing?: string[] };
  /** `abcd items add --title`: empty, several lines, control characters, or too long. */
  title: { reason: string };
  /** The item landed: there is no live claim to act on. */
  'item-landed': { item: string; ref: string; state: 'done' };
  /** A work branch that is no branch, or is main itself. */
  branch: { branch: string };
  /** The remote has no main branch. */
  'no-main': { main: string };
  /** A tag name that is no valid ref. */
  tag: { tag: string };
  /** A duration or instant that does not parse; `what` names the flag or variable. */
  duration: { what: string; value: string };
  /** A --ttl out of range. */
  ttl: { ttl: string };
  /** A number out of range or of the wrong form (a setting, a token count). */
  value: { key?: string; value: string };
  /** A setting abcd does not know. */
  setting: { key: string };
  /** A count given by a flag or variable, keyed by its name (--slots, ABCD_GATE_SLOTS). */
  count: Record<string, string>;
  /** A file abcd was told to read or would overwrite. */
  path: { path: string };
  /** .abcd/config.json on main: not JSON, an unknown key, a value of the wrong type. */
  config: { path: string; reason: 'not-json' | 'unknown-key' | 'wrong-type'; key?: string; allowed?: string[] };
  /** The working directory is no git clone. */
  clone: { cwd: string };
  /** The clone has no remote of that name. */
  remote: { remote: string };
  /** git user.email is unset or unusable. */
  identity: { setting?: 'user.email' };
  /** ABCD_SESSION is no session id (never echoed: its length only). */
  session: { length: number };
  /** An unknown verb, or a verb with no answer schema. */
  verb: { verb: string; verbs: string[] };
  /** A command gate cannot run. */
  command: { command: string };
  /** A command given where none is run (gate --status). */
  argv: { argv: string[] };
  /** A variable name in lanes.env that is none, or is never passed. */
  variable: { name: string; key?: string };
  /** A runtime's `keyFile` that abcd will not read: where it is, or why not (never its content). */
  'key-file': {
    key: string;
    path: string;
    reason:
      | 'not-absolute'
      | 'missing'
      | 'not-a-file'
      | 'unreadable'
      | 'empty'
      | 'too-large'
      | 'several-lines'
      | 'too-loose'
      | 'not-owned'
      | 'no-gateway';
  };
  /** A Codex provider abcd's model gateway cannot carry: it speaks another API than the Responses API. */
  'model-provider': { provider: string; wireApi: string };
  /** A steer text over the limit. */
  text: { chars: number };
  /** A --from-file that cannot be read. */
  file: { file: string };
  /** A run id that names no run whose logs this clone keeps, or more than one; `known` lists the newest. */
  run: { run: string; reason: 'unknown' | 'ambiguous'; known: string[] };
  /** `abcd land --approve <run>` names no run whose work waits for review on the item; `waiting` is the one that does. */
  review: { item: string; run: string; waiting?: string };
};

export type UsageKind = keyof UsageKinds;

/** A UsageError's arguments after its message: the kind, then its data (optional where all of it is). */
export type UsageArgs = {
  [K in UsageKind]: Record<string, never> extends UsageKinds[K] ? [kind: K, data?: UsageKinds[K]] : [kind: K, data: UsageKinds[K]];
}[UsageKind];

/** Any usage refusal's data. */
export type UsageErrorData = UsageKinds[UsageKind];
