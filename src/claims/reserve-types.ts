// What `abcd reserve` is asked and answers, shared by its two paths (reserve.ts, reserve-fast.ts).
import type { ItemKey } from '../records/item.js';

export interface ReserveInput {
  item: ItemKey;
  ttlMs?: number;
  waitMs: number;
  note?: string;
  /** Reserve an item whose work has landed (claim state done). */
  reopen?: boolean;
}

export interface ReserveResult {
  item: string;
  ref: string;
  tip: string;
  gen: number;
  holder: string;
  expiresAt: number;
  ttlMs: number;
  state: 'held';
  renewed: boolean;
  reopened: boolean;
  tookOverFrom?: string;
  waitedMs: number;
}
