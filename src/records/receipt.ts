// The receipt record: what a cycle absorbed from its steering requests.
import { z } from 'zod';
import { parseValue } from '../core/schema-parse.js';
import { decodeRecord, encodeRecord } from './envelope.js';
import { HolderSchema, PRINTABLE } from './holder.js';
import { MAX_INSTANT_MS, OID } from './limits.js';
import { lazySchema } from '../core/lazy-schema.js';

// One receipt names what one cycle absorbed; a cycle absorbs at most a few envelopes.
const MAX_CONSUMED = 100;

/** A request a lane can absorb in flight: a steer record, the pending slot's note, an item edit, an issue comment. */
export const RequestIdSchema = lazySchema(() =>
  z.object({
    kind: z.enum(['steer', 'pending', 'item', 'comment']),
    /** steer: its id; pending: the slot's tip; item: the item file's blob on main; comment: the forge's comment id. */
    id: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9._:-]+$/),
  }),
);
export type RequestId = z.infer<typeof RequestIdSchema>;

/**
 * The item's latest receipt (`abcd/receipts/<item>`; its commit chain is the history): which
 * requests a successful cycle absorbed in flight and the head it settled on. Written only by
 * the lane host, inside the fenced push that lands the work; a pending run whose request is
 * listed exits without starting the agent. Readers fail open: no receipt, a receipt they
 * cannot read, an id not listed all mean "do the work".
 */
export const ReceiptSchema = lazySchema(() =>
  z.object({
    abcd: z.literal('receipt'),
    v: z.literal(1),
    item: z.string().min(1).max(200),
    runId: z.string().min(1).max(100).regex(PRINTABLE),
    holder: HolderSchema,
    /** The claim generation the cycle held: orders receipts without trusting clocks. */
    gen: z.number().int().nonnegative(),
    at: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    /** The revision the work settled on (the landed tip). */
    head: z.string().regex(OID),
    consumed: z.array(RequestIdSchema).min(1).max(MAX_CONSUMED),
  }),
);
export type ReceiptRecord = z.infer<typeof ReceiptSchema>;

export function decodeReceipt(ref: string, blob: Buffer | string): ReceiptRecord {
  return decodeRecord(ref, 'receipt', ReceiptSchema, blob);
}

export function encodeReceipt(r: ReceiptRecord): string {
  return encodeRecord(parseValue(ReceiptSchema, r));
}

export function sameRequest(a: RequestId, b: RequestId): boolean {
  return a.kind === b.kind && a.id === b.id;
}

/**
 * What a landing records in the commit that marks its item done (git trailers): the run and
 * each request it absorbed. Main's history, which only land writes, is what proves a receipt.
 */
export interface Consumption {
  runId: string;
  requests: RequestId[];
}

export const RUN_TRAILER = 'Abcd-Run';
export const CONSUMED_TRAILER = 'Abcd-Consumed';

// A run id inside a trailer: one token, no spaces (abcd's ids are timestamps and hex).
const RUN_ID_TOKEN = /^[A-Za-z0-9._:-]{1,100}$/;

export const ConsumptionSchema = lazySchema(() =>
  z.object({
    runId: z.string().regex(RUN_ID_TOKEN),
    requests: z.array(RequestIdSchema).min(1).max(MAX_CONSUMED),
  }),
);

/** The trailer lines for a consumption, one per line, in a fixed order. */
export function consumptionTrailers(c: Consumption): string[] {
  const ok = parseValue(ConsumptionSchema, c);
  return [`${RUN_TRAILER}: ${ok.runId}`, ...ok.requests.map((r) => `${CONSUMED_TRAILER}: ${r.kind} ${r.id}`)];
}

/** The request as a trailer value ("pending <tip>"), to compare with what git parsed. */
export function consumedValue(r: RequestId): string {
  return `${r.kind} ${r.id}`;
}
