// The shapes of a finished snapshot, and of the settings candidate its decoding hands to the
// trust check: a file of their own so settings-trust/ names them without importing snapshot.ts.
import type { Claim } from '../records/claim.js';
import type { QueueRecord } from '../records/queue.js';
import type { AnnounceRecord } from '../records/announce.js';
import type { Settings, SettingsRecord } from '../records/settings.js';
import type { Refusal } from '../core/refusals.js';
import type { PendingRecord } from '../records/pending.js';
import type { LaneResultRecord } from '../records/lane-result.js';
import type { SteerRecord } from '../records/steer.js';
import type { ReceiptRecord } from '../records/receipt.js';
import type { BudgetLedgerRecord, TeamBudgetRecord } from '../records/team-budget.js';

export interface ClaimEntry {
  readonly ref: string;
  readonly item: string;
  readonly tip: string;
  readonly claim: Claim;
}

export interface QueueEntry {
  readonly ref: string;
  readonly item: string;
  readonly tip: string;
  readonly entry: QueueRecord;
}

export interface AnnounceEntry {
  readonly ref: string;
  readonly tip: string;
  readonly record: AnnounceRecord;
}

export interface PendingEntry {
  readonly ref: string;
  /** The canonical key (local:item:fix-login), from the ref. */
  readonly item: string;
  readonly tip: string;
  readonly request: PendingRecord;
}

export interface LaneEntry {
  readonly ref: string;
  readonly tip: string;
  readonly result: LaneResultRecord;
}

export interface SteerEntry {
  readonly ref: string;
  /** The canonical key, from the ref. */
  readonly item: string;
  readonly tip: string;
  readonly request: SteerRecord;
}

export interface ReceiptEntry {
  readonly ref: string;
  readonly item: string;
  readonly tip: string;
  readonly receipt: ReceiptRecord;
}

/** A record this abcd could not use, and why (rule 3, corrupt records). */
export interface RefusedEntry {
  readonly ref: string;
  readonly tip: string;
  readonly refusal: Refusal;
}

/** A settings generation: its commit and its record. */
export interface SettingsEntry {
  readonly tip: string;
  readonly record: SettingsRecord;
}

export interface SettingsTrust {
  /** Whether the person keeps an allowed-signers list (settings count only when signed). */
  readonly protected: boolean;
  /** The list's path: where it is, or where the person would create it. */
  readonly signers: string;
  /** The settings generation in force (a commit), absent on defaults. */
  readonly generation?: string;
}

/** The settings ref as decoded, before the trust check has judged whose it is. */
export interface SettingsCandidate {
  /** The remote's settings ref tip, whatever it holds. */
  readonly tip?: string;
  /** Its record, when it decoded. */
  readonly entry?: SettingsEntry;
  /** Its refusal, when it did not. */
  readonly refused?: RefusedEntry;
}

/** What the trust check makes of the candidate: the settings every reader acts on. */
export interface SettingsVerdict {
  readonly settings: Settings;
  /** The generation in force, when one is. */
  readonly entry?: SettingsEntry;
  readonly trust: SettingsTrust;
  /** The candidate's refusal, kept when the tip is the person's (a record too new, corrupt). */
  readonly refused?: RefusedEntry;
  /** A tip ignored because it is not the person's (shown under refused, never acted on). */
  readonly ignored?: RefusedEntry;
}

/** Judges a settings candidate (settings-trust/trust.ts): an input of every snapshot's construction. */
export type SettingsJudge = (candidate: SettingsCandidate) => Promise<SettingsVerdict>;

/** Who signed each steer and pending record, per the person's allowed-signers list. */
export interface RequestTrust {
  /** Whether the person keeps an allowed-signers list: without one no request can be proven. */
  protected: boolean;
  /** The list's path: where it is, or where the person would create it. */
  signers: string;
  /** Record tip → the principal the list maps its signing key to (absent: unproven). */
  by: Map<string, string>;
  /** Steer record commits this clone's lanes delivered in a landed cycle: never delivered again. */
  delivered?: ReadonlySet<string>;
}

/** Everything read from the remote's records in one round trip, finished and read-only. */
export interface Snapshot {
  readonly readAt: number;
  readonly claims: ReadonlyMap<string, ClaimEntry>;
  readonly queue: ReadonlyMap<string, QueueEntry>;
  readonly announcements: ReadonlyMap<string, AnnounceEntry>;
  /** The settings in force: the judged generation's, else the defaults. */
  readonly settings: Settings;
  /** The generation in force: the remote's tip, or the last validly signed one (ADR 0019). */
  readonly settingsEntry?: SettingsEntry;
  /** The remote's settings ref tip, whatever it holds: the lease a settings write states. */
  readonly settingsTip?: string;
  /** Whether settings are protected by the person's signature, and which generation counts. */
  readonly settingsTrust: SettingsTrust;
  /** Who signed each steer and pending record; absent where a reader did not ask (the fast reserve). */
  readonly requestTrust?: RequestTrust;
  /** A settings tip ignored because it is not signed by the person (shown under refused). */
  readonly settingsIgnored?: RefusedEntry;
  readonly refused: ReadonlyMap<string, RefusedEntry>;
  /** Pending follow-up requests, one slot per item (lanes). */
  readonly pending: ReadonlyMap<string, PendingEntry>;
  /** Lane run results (abcd/lanes/<run-id>). */
  readonly lanes: ReadonlyMap<string, LaneEntry>;
  /** Steer requests not yet delivered by a lane that landed (abcd/steer/<item>/<id>). */
  readonly steers: ReadonlyMap<string, SteerEntry>;
  /** Each item's latest receipt (abcd/receipts/<item>). */
  readonly receipts: ReadonlyMap<string, ReceiptEntry>;
  /** The team budget's limit as the remote has it, signature not yet judged (lanes/team-budget). */
  readonly teamBudget?: { readonly tip: string; readonly record: TeamBudgetRecord };
  /** The team budget's ledger: what was spent and what is reserved (ADR 0112). */
  readonly budgetLedger?: { readonly tip: string; readonly record: BudgetLedgerRecord };
  /** Refs under abcd/ of kinds this abcd does not know (left alone). */
  readonly unknown: readonly string[];
  /** The tips of the local refs `readSnapshot`'s extra refspecs fetched into, read with the records. */
  readonly fetched?: ReadonlyMap<string, string>;
}
