import { formatHolder } from '../records/holder.js';
import { SETTINGS_REF } from '../records/refs.js';
import { encodeSettings, SETTING_KEYS, type SettingKey, type Settings, type SettingsRecord } from '../records/settings.js';
import { Conflict, UsageError } from '../refusals.js';
import { writeRecordCommit } from '../remote/objects.js';
import { formatDuration, parseDuration } from '../time/duration.js';
import type { Repo } from './repo.js';
import { readSnapshot } from './snapshot.js';

export interface SettingsData {
  settings: Settings;
  /** Who wrote the record last, absent while the defaults apply. */
  by?: string;
  at?: number;
  changed?: SettingKey;
}

/** Reads the person's settings record, or writes one key with a lease on the tip read. */
export async function settings(repo: Repo, input: { key?: string; value?: string }): Promise<SettingsData> {
  const snap = await readSnapshot(repo);
  const refused = snap.refused.get(SETTINGS_REF);
  if (refused) throw refused.refusal;
  const current = snap.settingsEntry;
  const base = { settings: snap.settings, ...(current ? { by: formatHolder(current.record.by), at: current.record.at } : {}) };
  if (input.key === undefined) return base;
  const key = checkKey(input.key);
  if (input.value === undefined) return base;
  const spec = SETTING_KEYS[key];
  const value = spec.duration ? parseDuration(input.value, key) : parseCount(input.value, key);
  if (value < spec.min || value > spec.max) {
    const show = (n: number) => (spec.duration ? formatDuration(n) : String(n));
    throw new UsageError(`${key} must be from ${show(spec.min)} to ${show(spec.max)}, got ${input.value}.`, { key, value: input.value });
  }
  const now = repo.deps.clock.now();
  const record: SettingsRecord = { abcd: 'settings', v: 1, ...snap.settings, [spec.field]: value, at: now, by: repo.me };
  const tip = await writeRecordCommit({
    git: repo.git,
    content: encodeSettings(record),
    parent: current?.tip ?? null,
    message: `settings: ${key} = ${input.value}`,
    author: repo.author,
    atMs: now,
  });
  const r = await repo.store.push([{ ref: SETTINGS_REF, newOid: tip, lease: current?.tip ?? null }], { atomic: true });
  if (!r.ok) {
    throw new Conflict('the settings record changed while writing it; nothing was written. Read it again (abcd settings) and retry.', {
      ref: SETTINGS_REF,
    });
  }
  return { settings: { ...snap.settings, [spec.field]: value }, by: formatHolder(repo.me), at: now, changed: key };
}

function checkKey(key: string): SettingKey {
  if (key in SETTING_KEYS) return key as SettingKey;
  throw new UsageError(`unknown setting "${key}"; the settings are ${Object.keys(SETTING_KEYS).join(', ')}.`, { key });
}

function parseCount(text: string, key: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new UsageError(`${key} must be a whole number, got "${text}".`, { key, value: text });
  return Number(text);
}
