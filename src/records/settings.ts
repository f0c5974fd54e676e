// The settings record: the repository's timing settings and their bounds.
import { z } from 'zod';
import { parseValue } from '../core/schema-parse.js';
import { decodeRecord, encodeRecord } from './envelope.js';
import { HolderSchema } from './holder.js';
import { MAX_INSTANT_MS, MAX_TTL_MS, OID } from './limits.js';
import { lazySchema } from '../core/lazy-schema.js';

// Upper bounds: a setting past them is a typo or an attack, and would break time arithmetic.
const MAX_RESERVATION_CAP = 10_000;
const MAX_TAKEOVER_DELAY_MS = 86_400_000;
const MAX_DONE_RETENTION_MS = 366 * 86_400_000;
/** Requesters the person names: a short list of people, not a directory. */
export const MAX_REQUESTERS = 50;
/** Globs the person adds to the protected paths: a short list of patterns. */
export const MAX_PROTECTED_GLOBS = 100;
/** A protected-paths glob: relative, no `..` segment, no spaces, commas (the CLI's separator) or control characters. */
export const PROTECTED_GLOB = /^(?!\/)(?!.*(^|\/)\.\.(\/|$))[^\s,\p{Cc}]{1,300}$/u;

/**
 * A requester is a signer principal as the allowed-signers list writes it (an email, say): no
 * spaces, no commas (the CLI's separator), no control characters.
 */
export const PRINCIPAL = /^[^\s,\p{Cc}]{1,254}$/u;

export const DEFAULT_SETTINGS = {
  /** Live reservations one person may hold at once. */
  reservationCap: 5,
  /** A claim's time to live when --ttl is not given. */
  defaultTtl: 30 * 60_000,
  /** After expiry, how long before a claim may be taken over (and how long a reader must watch it). */
  takeoverDelay: 60_000,
  /** How long a done claim is kept so no lane redoes landed work. */
  doneRetention: 14 * 86_400_000,
  /** Who besides the person may steer and request follow-ups with authority (signer principals). */
  requesters: [] as readonly string[],
  /** Globs (repo/protected-paths.ts) a lane's change may not land without the person, on top of the built-in ones. */
  protectedPaths: [] as readonly string[],
} as const;

export const SettingsSchema = lazySchema(() =>
  z.object({
    abcd: z.literal('settings'),
    v: z.literal(1),
    reservationCap: z.number().int().min(1).max(MAX_RESERVATION_CAP),
    defaultTtl: z.number().int().min(1000).max(MAX_TTL_MS),
    takeoverDelay: z.number().int().min(0).max(MAX_TAKEOVER_DELAY_MS),
    doneRetention: z.number().int().min(0).max(MAX_DONE_RETENTION_MS),
    requesters: z.array(z.string().regex(PRINCIPAL)).max(MAX_REQUESTERS).optional(),
    protectedPaths: z.array(z.string().regex(PROTECTED_GLOB)).max(MAX_PROTECTED_GLOBS).optional(),
    /**
     * Set on a generation `abcd land --approve` writes: the person approved this lane run's work
     * (its head and tree, and the .abcd/config.json blob in it, which lanes then trust: ADR 0104).
     * Only this generation says so; the next one does not carry it.
     */
    approval: z
      .object({
        item: z.string().min(1).max(200),
        run: z
          .string()
          .min(1)
          .max(100)
          .regex(/^[\x21-\x7e]+$/),
        head: z.string().regex(OID),
        tree: z.string().regex(OID),
        config: z.string().regex(OID).optional(),
      })
      .optional(),
    /**
     * The repository the generation is for: the root commit of main's first-parent history
     * (ADR 0067). A reader that keeps an allowed-signers list ignores a generation naming another.
     */
    repository: z.string().regex(OID).optional(),
    at: z.number().int().nonnegative().max(MAX_INSTANT_MS),
    by: HolderSchema,
  }),
);
export type SettingsRecord = z.infer<typeof SettingsSchema>;
export interface Settings extends Pick<SettingsRecord, 'reservationCap' | 'defaultTtl' | 'takeoverDelay' | 'doneRetention'> {
  requesters: readonly string[];
  protectedPaths: readonly string[];
}

/** The CLI's names for each setting, whether it is a duration, and its range. */
export const SETTING_KEYS = {
  'reservation-cap': { field: 'reservationCap', duration: false, min: 1, max: MAX_RESERVATION_CAP },
  'default-ttl': { field: 'defaultTtl', duration: true, min: 1000, max: MAX_TTL_MS },
  'takeover-delay': { field: 'takeoverDelay', duration: true, min: 0, max: MAX_TAKEOVER_DELAY_MS },
  'done-retention': { field: 'doneRetention', duration: true, min: 0, max: MAX_DONE_RETENTION_MS },
  requesters: { field: 'requesters', list: true },
  'protected-paths': { field: 'protectedPaths', globs: true },
} as const;
export type SettingKey = keyof typeof SETTING_KEYS;

export function decodeSettings(ref: string, blob: Buffer | string): SettingsRecord {
  return decodeRecord(ref, 'settings', SettingsSchema, blob);
}

export function encodeSettings(s: SettingsRecord): string {
  return encodeRecord(parseValue(SettingsSchema, s));
}

/** The settings a record states, without its envelope. */
export function pickSettings(r: SettingsRecord): Settings {
  return {
    reservationCap: r.reservationCap,
    defaultTtl: r.defaultTtl,
    takeoverDelay: r.takeoverDelay,
    doneRetention: r.doneRetention,
    requesters: r.requesters ?? [],
    protectedPaths: r.protectedPaths ?? [],
  };
}
