// The shapes a batch's head and members share between forming, testing, settling and following it.
import type { CheckFailed, Conflict } from '../../core/refusals.js';
import type { QueueRecord } from '../../records/queue.js';
import type { QueueEntry } from '../../repo/snapshot.js';

export interface HeadEntry extends OwnEntry {
  entry: QueueRecord;
}

/** A failure of one test: the member a refusal would name, and what to tell it. */
export type Failure =
  | { kind: 'check'; error: CheckFailed; tested: string; base: string }
  | { kind: 'conflict'; error: Conflict; entry: QueueEntry; tested: string; base: string };

/** A land's own queue entry as it knows it; the tip moves when a verdict is written into it. */
export interface OwnEntry {
  qref: string;
  myEntryTip: string;
  enqueuedAt: number;
  /** Set when the push that settled its batch already took the entry out. */
  left?: boolean;
  /** Every tip this land wrote its entry at (its batch lease's beats): a read may see an older one. */
  written?: Set<string>;
}

/** Whether `tip` is one this land wrote its own entry at: the current one, or a beat a read just missed. */
export function isOwnTip(q: OwnEntry, tip: string): boolean {
  return tip === q.myEntryTip || (q.written?.has(tip) ?? false);
}
