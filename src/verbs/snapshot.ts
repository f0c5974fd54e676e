import { decodeClaim, type Claim } from '../records/claim.js';
import { MAX_RECORD_BYTES } from '../records/envelope.js';
import { classifyRef, isRefSafe, itemOfRef, SETTINGS_REF } from '../records/refs.js';
import { decodeQueue, type QueueRecord } from '../records/queue.js';
import { decodeAnnounce, type AnnounceRecord } from '../records/announce.js';
import { DEFAULT_SETTINGS, decodeSettings, pickSettings, type Settings, type SettingsRecord } from '../records/settings.js';
import { applySettingsTrust, type SettingsTrust } from './settings-trust.js';
import { RecordInvalid, isRefusal, type Refusal } from '../refusals.js';
import type { RawRecord } from '../remote/record-store.js';
import { sanitizeLine } from '../text/sanitize.js';
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
  /** Refs under abcd/ of kinds this abcd does not know (left alone). */
  unknown: string[];
}

/** Fetches the record namespace (one round trip) and decodes every record. */
export async function readSnapshot(repo: Repo, also: readonly string[] = []): Promise<Snapshot> {
  await repo.store.fetch(also);
  const raws = await repo.store.readCached();
  const snap = decodeSnapshot(raws, repo.deps.clock.now());
  await applySettingsTrust(repo, snap);
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
        const claim = decodeClaim(raw.ref, blobOf(raw));
        snap.claims.set(raw.ref, { ref: raw.ref, item: itemOfRef(raw.ref) ?? claim.item, tip: raw.tip, claim });
      } else if (kind.kind === 'queue') {
        const entry = decodeQueue(raw.ref, blobOf(raw));
        snap.queue.set(raw.ref, { ref: raw.ref, item: itemOfRef(raw.ref) ?? entry.item, tip: raw.tip, entry });
      } else if (kind.kind === 'announce') {
        snap.announcements.set(raw.ref, { ref: raw.ref, tip: raw.tip, record: decodeAnnounce(raw.ref, blobOf(raw)) });
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
  return raw.blob;
}
