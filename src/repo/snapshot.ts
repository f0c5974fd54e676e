import { decodeClaim, type Claim } from '../records/claim.js';
import { MAX_RECORD_BYTES } from '../records/envelope.js';
import { formatItem, shortItem, type ItemKey } from '../records/item.js';
import { formatDuration, formatInstant } from '../core/duration.js';
import { classifyRef, isRefSafe, itemOfRef, SETTINGS_REF } from '../records/refs.js';
import { decodeQueue, type QueueRecord } from '../records/queue.js';
import { decodeAnnounce, type AnnounceRecord } from '../records/announce.js';
import { DEFAULT_SETTINGS, decodeSettings, pickSettings, type Settings, type SettingsRecord } from '../records/settings.js';
import { applySettingsTrust, type SettingsTrust } from './settings-trust/trust.js';
import { applyRequestTrust, type RequestTrust } from './settings-trust/request-signers.js';
import { RecordInvalid, isRefusal, type Refusal } from '../core/refusals.js';
import { decodePending, type PendingRecord } from '../records/pending.js';
import { decodeLaneResult, type LaneResultRecord } from '../records/lane-result.js';
import { decodeSteer, type SteerRecord } from '../records/steer.js';
import { decodeReceipt, type ReceiptRecord } from '../records/receipt.js';
import type { RawRecord } from '../records/store.js';
import { sanitizeLine } from '../core/sanitize.js';
import type { Repo } from './repo.js';

export interface ClaimEntry {
  ref: string;
  item: string;
  tip: string;
  claim: Claim;
}

export interface QueueEntry {
  ref: string;
  item: string;
  tip: string;
  entry: QueueRecord;
}

export interface AnnounceEntry {
  ref: string;
  tip: string;
  record: AnnounceRecord;
}

export interface PendingEntry {
  ref: string;
  /** The canonical key (local:item:fix-login), from the ref. */
  item: string;
  tip: string;
  request: PendingRecord;
}

export interface LaneEntry {
  ref: string;
  tip: string;
  result: LaneResultRecord;
}

export interface SteerEntry {
  ref: string;
  /** The canonical key, from the ref. */
  item: string;
  tip: string;
  request: SteerRecord;
}

export interface ReceiptEntry {
  ref: string;
  item: string;
  tip: string;
  receipt: ReceiptRecord;
}

/** A record this abcd could not use, and why (rule 3, corrupt records). */
export interface RefusedEntry {
  ref: string;
  tip: string;
  refusal: Refusal;
}

/** Everything read from the remote's records in one round trip. */
export interface Snapshot {
  readAt: number;
  claims: Map<string, ClaimEntry>;
  queue: Map<string, QueueEntry>;
  announcements: Map<string, AnnounceEntry>;
  settings: Settings;
  /** The generation in force: the remote's tip, or the last validly signed one (ADR 0019). */
  settingsEntry?: { tip: string; record: SettingsRecord };
  /** The remote's settings ref tip, whatever it holds: the lease a settings write states. */
  settingsTip?: string;
  /** Whether settings are protected by the person's signature, and which generation counts. */
  settingsTrust?: SettingsTrust;
  /** A settings tip ignored because it is not signed by the person (shown under refused). */
  settingsIgnored?: RefusedEntry;
  refused: Map<string, RefusedEntry>;
  /** Who signed each steer and pending record, per the person's allowed-signers list. */
  requestTrust?: RequestTrust;
  /** Pending follow-up requests, one slot per item (lanes). */
  pending: Map<string, PendingEntry>;
  /** Lane run results (abcd/lanes/<run-id>). */
  lanes: Map<string, LaneEntry>;
  /** Steer requests not yet delivered by a lane that landed (abcd/steer/<item>/<id>). */
  steers: Map<string, SteerEntry>;
  /** Each item's latest receipt (abcd/receipts/<item>). */
  receipts: Map<string, ReceiptEntry>;
  /** Refs under abcd/ of kinds this abcd does not know (left alone). */
  unknown: string[];
  /** The tips of the local refs `readSnapshot`'s extra refspecs fetched into, read with the records. */
  fetched?: Map<string, string>;
}

/** Fetches the record namespace (one round trip) and decodes every record. */
export async function readSnapshot(repo: Repo, also: readonly string[] = []): Promise<Snapshot> {
  await repo.store.fetch(also);
  // The refs the extra refspecs fetched into are read with the records, in the same process.
  const into = also
    .filter((spec) => spec.includes(':'))
    .map((spec) => spec.slice(spec.indexOf(':') + 1))
    .filter((dst) => dst.startsWith('refs/'));
  const { records, tips } = await repo.store.readCachedWith(into);
  const snap = decodeSnapshot(records, repo.deps.clock.now());
  if (tips.size) snap.fetched = tips;
  await applySettingsTrust(repo, snap);
  await applyRequestTrust(repo, snap);
  return snap;
}

export function decodeSnapshot(raws: readonly RawRecord[], readAt: number): Snapshot {
  const snap: Snapshot = {
    readAt,
    claims: new Map(),
    queue: new Map(),
    announcements: new Map(),
    settings: { ...DEFAULT_SETTINGS },
    refused: new Map(),
    pending: new Map(),
    lanes: new Map(),
    steers: new Map(),
    receipts: new Map(),
    unknown: [],
  };
  for (const raw of raws) {
    if (!isRefSafe(raw.ref)) {
      const shown = JSON.stringify(sanitizeLine(raw.ref, 200));
      snap.refused.set(raw.ref, {
        ref: raw.ref,
        tip: raw.tip,
        refusal: new RecordInvalid(`record ref ${shown} is not a safe ref name; abcd leaves it alone. Delete it on the remote.`, {
          ref: raw.ref,
          reason: 'ref-name',
        }),
      });
      continue;
    }
    const kind = classifyRef(raw.ref);
    if (!kind) {
      snap.unknown.push(raw.ref);
      continue;
    }
    try {
      if (kind.kind === 'claim') {
        const claim = checkItemRecord(raw.ref, kind.item, decodeClaim(raw.ref, blobOf(raw)), readAt);
        snap.claims.set(raw.ref, { ref: raw.ref, item: itemOfRef(raw.ref) ?? claim.item, tip: raw.tip, claim });
      } else if (kind.kind === 'queue') {
        const entry = checkItemRecord(raw.ref, kind.item, decodeQueue(raw.ref, blobOf(raw)), readAt);
        snap.queue.set(raw.ref, { ref: raw.ref, item: itemOfRef(raw.ref) ?? entry.item, tip: raw.tip, entry });
      } else if (kind.kind === 'announce') {
        snap.announcements.set(raw.ref, { ref: raw.ref, tip: raw.tip, record: decodeAnnounce(raw.ref, blobOf(raw)) });
      } else if (kind.kind === 'pending' || kind.kind === 'lane') {
        decodeLaneRecord(raw, kind.kind, snap, kind.item);
      } else if (kind.kind === 'steer' && kind.item) {
        snap.steers.set(raw.ref, { ref: raw.ref, item: formatItem(kind.item), tip: raw.tip, request: decodeSteer(raw.ref, blobOf(raw)) });
      } else if (kind.kind === 'receipt' && kind.item) {
        snap.receipts.set(raw.ref, {
          ref: raw.ref,
          item: formatItem(kind.item),
          tip: raw.tip,
          receipt: decodeReceipt(raw.ref, blobOf(raw)),
        });
      } else if (kind.kind === 'settings' && raw.ref === SETTINGS_REF) {
        snap.settingsTip = raw.tip;
        const record = decodeSettings(raw.ref, blobOf(raw));
        snap.settingsEntry = { tip: raw.tip, record };
        snap.settings = pickSettings(record);
      }
    } catch (e) {
      if (!isRefusal(e)) throw e;
      snap.refused.set(raw.ref, { ref: raw.ref, tip: raw.tip, refusal: e });
    }
  }
  return snap;
}

/** The lanes' records: pending slots and run results. Throws a refusal for a bad one. */
function decodeLaneRecord(raw: RawRecord, kind: 'pending' | 'lane', snap: Snapshot, item?: ItemKey): void {
  if (kind === 'pending') {
    const request = decodePending(raw.ref, blobOf(raw));
    snap.pending.set(raw.ref, { ref: raw.ref, item: item ? formatItem(item) : request.item, tip: raw.tip, request });
  } else {
    snap.lanes.set(raw.ref, { ref: raw.ref, tip: raw.tip, result: decodeLaneResult(raw.ref, blobOf(raw)) });
  }
}

/** A record's blob, or the refusal for a tip without a readable one. */
export function blobOf(raw: RawRecord): Buffer {
  if (raw.oversized !== undefined) {
    throw new RecordInvalid(
      `record ${sanitizeLine(raw.ref)} is ${raw.oversized} bytes, over the ${MAX_RECORD_BYTES}-byte limit; it was not read. ` +
        'Delete or rewrite that ref on the remote.',
      { ref: raw.ref, reason: 'oversized', bytes: raw.oversized },
    );
  }
  if (!raw.blob) {
    throw new RecordInvalid(`record ${sanitizeLine(raw.ref)} has no record.json in its tip ${raw.tip.slice(0, 12)}.`, {
      ref: raw.ref,
      reason: 'no-record-file',
    });
  }
  if (raw.extraFiles) {
    // abcd writes exactly one file; anything beside it was put there by something else.
    const item = itemOfRef(raw.ref);
    throw new RecordInvalid(
      `record ${sanitizeLine(raw.ref)} holds files besides record.json in its tip ${raw.tip.slice(0, 12)}; abcd did not write it ` +
        `and does not act on it. Look at it (git show), then ${item ? `clear it with abcd release ${sanitizeLine(item)} --force` : 'delete that ref'}.`,
      { ref: raw.ref, reason: 'extra-files', tip: raw.tip },
    );
  }
  return raw.blob;
}

/**
 * How far past the reader's clock a record's `at` may be before it is refused as
 * future-dated. A clock kept in local time instead of UTC is off by at most 14 hours; a day
 * is past any such mistake. Beyond it the writer's clock or hand is broken, and honouring the
 * record would keep it alive (and unprunable) for as long as its date is ahead.
 */
export const FUTURE_MARGIN_MS = 86_400_000;

/**
 * The checks a decoded claim or queue entry passes before abcd acts on it: it names the item
 * of its ref, and it is not dated past the reader's clock by more than FUTURE_MARGIN_MS.
 */
function checkItemRecord<R extends { item: string; at: number }>(ref: string, key: ItemKey | undefined, record: R, readAt: number): R {
  const expected = key ? formatItem(key) : record.item;
  if (record.item !== expected) {
    throw new RecordInvalid(
      `record ${sanitizeLine(ref)} names item ${JSON.stringify(sanitizeLine(record.item, 100))}, not ${sanitizeLine(expected)} that its ref names; abcd ` +
        `does not act on it. Clear it with abcd release ${key ? sanitizeLine(shortItem(key)) : '<item>'} --force.`,
      { ref, reason: 'item-mismatch', item: record.item.slice(0, 200), expected },
    );
  }
  if (record.at > readAt + FUTURE_MARGIN_MS) {
    throw new RecordInvalid(
      `record ${sanitizeLine(ref)} is dated ${formatInstant(record.at)}, more than ${formatDuration(FUTURE_MARGIN_MS)} past this ` +
        `computer's clock (${formatInstant(readAt)}): the writer's clock or this one is wrong. abcd does not act on it. ` +
        `Check both clocks; clear it with abcd release ${key ? sanitizeLine(shortItem(key)) : '<item>'} --force.`,
      { ref, reason: 'future-dated', at: record.at, readAt, marginMs: FUTURE_MARGIN_MS },
    );
  }
  return record;
}
