// The shapes a batch's head shares between forming, testing and settling it.
import type { CheckFailed, Conflict } from '../core/refusals.js';
import type { QueueRecord } from '../records/queue.js';
import type { QueueEntry } from '../repo/snapshot.js';
import type { OwnEntry } from './batch-follow.js';

export interface HeadEntry extends OwnEntry {
  entry: QueueRecord;
}

/** A failure of one test: the member a refusal would name, and what to tell it. */
export type Failure =
  | { kind: 'check'; error: CheckFailed; tested: string; base: string }
  | { kind: 'conflict'; error: Conflict; entry: QueueEntry; tested: string; base: string };
