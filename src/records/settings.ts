import { z } from 'zod';
import { decodeRecord, encodeRecord } from './envelope.js';
import { HolderSchema } from './holder.js';

export const DEFAULT_SETTINGS = {
  /** Live reservations one person may hold at once. */
  reservationCap: 5,
  /** A claim's time to live when --ttl is not given. */
  defaultTtl: 30 * 60_000,
  /** After expiry, how long before a claim may be taken over (and how long a reader must watch it). */
  takeoverDelay: 60_000,
  /** How long a done claim is kept so no lane redoes landed work. */
  doneRetention: 14 * 86_400_000,
} as const;

export const SettingsSchema = z.object({
  abcd: z.literal('settings'),
  v: z.literal(1),
  reservationCap: z.number().int().min(1).max(10_000),
  defaultTtl: z.number().int().min(1000),
  takeoverDelay: z.number().int().min(0),
  doneRetention: z.number().int().min(0),
  at: z.number().int().nonnegative(),
  by: HolderSchema,
});
export type SettingsRecord = z.infer<typeof SettingsSchema>;
export type Settings = Pick<SettingsRecord, 'reservationCap' | 'defaultTtl' | 'takeoverDelay' | 'doneRetention'>;

/** The CLI's names for each setting, and whether it is a duration. */
export const SETTING_KEYS = {
  'reservation-cap': { field: 'reservationCap', duration: false },
  'default-ttl': { field: 'defaultTtl', duration: true },
  'takeover-delay': { field: 'takeoverDelay', duration: true },
  'done-retention': { field: 'doneRetention', duration: true },
} as const;
export type SettingKey = keyof typeof SETTING_KEYS;

export function decodeSettings(ref: string, blob: Buffer | string): SettingsRecord {
  return decodeRecord(ref, 'settings', SettingsSchema, blob);
}

export function encodeSettings(s: SettingsRecord): string {
  return encodeRecord(SettingsSchema.parse(s));
}
