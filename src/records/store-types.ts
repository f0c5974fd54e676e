// The shapes the record store reads and writes, apart from the store so its helpers need not import it.
import type { KnownKind } from './envelope.js';

/** A record ref as mirrored from the remote, with its blob when it has one. */
export interface RawRecord {
  ref: string;
  tip: string;
  /** undefined when the tip's tree has no record file. */
  blob?: Buffer;
  /** Size of the blob when it was too large to read. */
  oversized?: number;
  /** The tip's tree holds more than the record file (a record commit holds exactly one). */
  extraFiles?: true;
  blobOid?: string;
  /** This build decoded this tip as this kind before, and the record was exactly the blob's JSON (checked-tips.ts). */
  checked?: KnownKind;
}

/**
 * One ref to change in a push. `lease`: a tip the remote must still have, null for "must
 * not exist yet", undefined for no lease (a plain fast-forward push).
 */
export interface RefUpdate {
  ref: string;
  /** null deletes the ref. */
  newOid: string | null;
  lease?: string | null;
}

/**
 * How long the next network git call may run. `deadline`: the call ends then because a verb's
 * wait ends then (every wait ends by a stated time), not because the network timeout ran out; refusals name it.
 */
export interface NetworkLimit {
  ms: number;
  deadline?: { startedAt: number; untilMs: number; waitedMs: () => number };
}
