// The snapshot: every record decoded, read-only, with what could not be used.
import { decodeClaim } from '../records/claim.js';
import { MAX_RECORD_BYTES, type KnownKind } from '../records/envelope.js';
import { formatItem, shortItem, type ItemKey } from '../records/item.js';
import { formatDuration, formatInstant } from '../core/duration.js';
import { classifyRef, isRefSafe, itemOfRef, SETTINGS_REF } from '../records/refs.js';
import { decodeQueue } from '../records/queue.js';
import { decodeAnnounce } from '../records/announce.js';
import { decodeSettings } from '../records/settings.js';
import { settingsJudge } from './settings-trust/trust.js';
import { RecordInvalid, isRefusal } from '../core/refusals.js';
import { decodePending } from '../records/pending.js';
import { decodeLaneResult } from '../records/lane-result.js';
import { decodeSteer } from '../records/steer.js';
import { decodeReceipt } from '../records/receipt.js';
import { decodeBudgetLedger, decodeTeamBudget } from '../records/team-budget.js';
import { readRequestTrust } from './settings-trust/request-signers.js';
import type { RawRecord } from '../records/store.js';
import { sanitizeLine } from '../core/sanitize.js';
import type { Repo } from './repo.js';
import type {
  AnnounceEntry,
  ClaimEntry,
  LaneEntry,
  PendingEntry,
  QueueEntry,
  ReceiptEntry,
  RefusedEntry,
  SettingsCandidate,
  SettingsJudge,
  Snapshot,
  SteerEntry,
} from './snapshot-types.js';

export type {
  AnnounceEntry,
  ClaimEntry,
  LaneEntry,
  PendingEntry,
  QueueEntry,
  ReceiptEntry,
  RefusedEntry,
  SettingsJudge,
  Snapshot,
  SteerEntry,
} from './snapshot-types.js';

/** Fetches the record namespace (one round trip) and builds the snapshot, settings judged by this clone's trust. */
export async function readSnapshot(repo: Repo, also: readonly string[] = []): Promise<Snapshot> {
  await repo.store.fetch(also);
  // The refs the extra refspecs fetched into are read with the records, in the same process.
  const into = also
    .filter((spec) => spec.includes(':'))
    .map((spec) => spec.slice(spec.indexOf(':') + 1))
    .filter((dst) => dst.startsWith('refs/'));
  const { records, tips } = await repo.store.readCachedWith(into);
  const learned = new Map<string, KnownKind>();
  const snap = await buildSnapshot(records, {
    readAt: repo.deps.clock.now(),
    judge: settingsJudge(repo),
    learned,
    ...(tips.size ? { fetched: tips } : {}),
  });
  await repo.store.keepChecked(records, learned);
  // Who signed each request: verified once per commit and cached, so the common read starts no process.
  return Object.freeze({ ...snap, requestTrust: await readRequestTrust(repo, snap) });
}

/** The records of this clone's cache, without a fetch, built like readSnapshot (the fast reserve's read). */
export async function readCachedSnapshot(repo: Repo): Promise<{ snap: Snapshot; raws: readonly RawRecord[] }> {
  const raws = await repo.store.readCached();
  const learned = new Map<string, KnownKind>();
  const snap = await buildSnapshot(raws, { readAt: repo.deps.clock.now(), judge: settingsJudge(repo), learned });
  await repo.store.keepChecked(raws, learned);
  return { raws, snap };
}

/**
 * The one way to a Snapshot: decodes every record, has `judge` decide which settings count
 * (the trust check is an input, so no reader can act on a settings tip nobody judged), and
 * returns it finished and frozen. `learned`: collects the tips decoded through a schema whose
 * record was exactly the blob's JSON, for the store to keep (decodeAs).
 */
export async function buildSnapshot(
  raws: readonly RawRecord[],
  o: { readAt: number; judge: SettingsJudge; fetched?: ReadonlyMap<string, string>; learned?: Map<string, KnownKind> },
): Promise<Snapshot> {
  const draft = decodeRecords(raws, o.readAt, o.learned);
  const verdict = await o.judge(draft.settings);
  const refused = new Map(draft.refused);
  if (verdict.refused) refused.set(SETTINGS_REF, verdict.refused);
  return Object.freeze({
    readAt: o.readAt,
    claims: draft.claims,
    queue: draft.queue,
    announcements: draft.announcements,
    settings: Object.freeze({ ...verdict.settings }),
    ...(verdict.entry ? { settingsEntry: verdict.entry } : {}),
    ...(draft.settings.tip !== undefined ? { settingsTip: draft.settings.tip } : {}),
    settingsTrust: verdict.trust,
    ...(verdict.ignored ? { settingsIgnored: verdict.ignored } : {}),
    refused,
    pending: draft.pending,
    lanes: draft.lanes,
    steers: draft.steers,
    receipts: draft.receipts,
    ...(draft.teamBudget ? { teamBudget: draft.teamBudget } : {}),
    ...(draft.budgetLedger ? { budgetLedger: draft.budgetLedger } : {}),
    unknown: Object.freeze([...draft.unknown]),
    ...(o.fetched ? { fetched: o.fetched } : {}),
  });
}

/** The records as decoded, the settings ref still a candidate: only buildSnapshot sees it. */
interface Decoded {
  claims: Map<string, ClaimEntry>;
  queue: Map<string, QueueEntry>;
  announcements: Map<string, AnnounceEntry>;
  settings: { tip?: string; entry?: SettingsCandidate['entry']; refused?: RefusedEntry };
  /** Every refused record but the settings ref's, which the verdict keeps or drops. */
  refused: Map<string, RefusedEntry>;
  pending: Map<string, PendingEntry>;
  lanes: Map<string, LaneEntry>;
  steers: Map<string, SteerEntry>;
  receipts: Map<string, ReceiptEntry>;
  teamBudget?: Snapshot['teamBudget'];
  budgetLedger?: Snapshot['budgetLedger'];
  unknown: string[];
}

function decodeRecords(raws: readonly RawRecord[], readAt: number, learned?: Map<string, KnownKind>): Decoded {
  const snap: Decoded = {
    claims: new Map(),
    queue: new Map(),
    announcements: new Map(),
    settings: {},
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
    const settingsRef = kind.kind === 'settings' && raw.ref === SETTINGS_REF;
    if (settingsRef) snap.settings.tip = raw.tip;
    try {
      decodeRecord(raw, kind, snap, readAt, settingsRef, learned);
    } catch (e) {
      if (!isRefusal(e)) throw e;
      const entry = { ref: raw.ref, tip: raw.tip, refusal: e };
      if (settingsRef) snap.settings.refused = entry;
      else snap.refused.set(raw.ref, entry);
    }
  }
  return snap;
}

/** One record into its place in `snap` by its kind. Throws a refusal for a bad one. */
function decodeRecord(
  raw: RawRecord,
  kind: NonNullable<ReturnType<typeof classifyRef>>,
  snap: Decoded,
  readAt: number,
  settingsRef: boolean,
  learned?: Map<string, KnownKind>,
): void {
  const as = <T>(k: KnownKind, decode: (ref: string, blob: Buffer) => T): T => decodeAs(raw, k, decode, learned);
  if (kind.kind === 'claim') {
    const claim = checkItemRecord(raw.ref, kind.item, as('claim', decodeClaim), readAt);
    snap.claims.set(raw.ref, { ref: raw.ref, item: itemOfRef(raw.ref) ?? claim.item, tip: raw.tip, claim });
  } else if (kind.kind === 'queue') {
    const entry = checkItemRecord(raw.ref, kind.item, as('queue', decodeQueue), readAt);
    snap.queue.set(raw.ref, { ref: raw.ref, item: itemOfRef(raw.ref) ?? entry.item, tip: raw.tip, entry });
  } else if (kind.kind === 'announce') {
    snap.announcements.set(raw.ref, { ref: raw.ref, tip: raw.tip, record: as('announce', decodeAnnounce) });
  } else if (kind.kind === 'pending') {
    const request = as('pending', decodePending);
    snap.pending.set(raw.ref, { ref: raw.ref, item: kind.item ? formatItem(kind.item) : request.item, tip: raw.tip, request });
  } else if (kind.kind === 'lane') {
    snap.lanes.set(raw.ref, { ref: raw.ref, tip: raw.tip, result: as('lane', decodeLaneResult) });
  } else if (kind.kind === 'steer' && kind.item) {
    snap.steers.set(raw.ref, { ref: raw.ref, item: formatItem(kind.item), tip: raw.tip, request: as('steer', decodeSteer) });
  } else if (kind.kind === 'receipt' && kind.item) {
    snap.receipts.set(raw.ref, { ref: raw.ref, item: formatItem(kind.item), tip: raw.tip, receipt: as('receipt', decodeReceipt) });
  } else if (kind.kind === 'team-budget') {
    snap.teamBudget = { tip: raw.tip, record: as('team-budget', decodeTeamBudget) };
  } else if (kind.kind === 'budget-ledger') {
    snap.budgetLedger = { tip: raw.tip, record: as('budget-ledger', decodeBudgetLedger) };
  } else if (settingsRef) {
    snap.settings.entry = { tip: raw.tip, record: as('settings', decodeSettings) };
  }
}

/**
 * A record decoded as `kind`: a tip this build decoded before is its blob's JSON, read with no
 * schema (checked-tips.ts); any other goes through `decode`, and is `learned` when the
 * schema's answer is exactly the blob's JSON. The checks of the blob itself (its size, its
 * tree) and of the ref (its item, its date) run at every read all the same.
 */
function decodeAs<T>(raw: RawRecord, kind: KnownKind, decode: (ref: string, blob: Buffer) => T, learned?: Map<string, KnownKind>): T {
  const blob = blobOf(raw);
  if (raw.checked === kind) return JSON.parse(blob.toString()) as T;
  const value = decode(raw.ref, blob);
  if (learned && JSON.stringify(value) === JSON.stringify(JSON.parse(blob.toString()))) learned.set(raw.tip, kind);
  return value;
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
