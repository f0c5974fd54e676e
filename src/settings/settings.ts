// `abcd settings`: the settings in force and who wrote them, or one key written with a lease.
import { formatHolder } from '../records/holder.js';
import { SETTINGS_REF } from '../records/refs.js';
import {
  encodeSettings,
  MAX_PROTECTED_GLOBS,
  MAX_REQUESTERS,
  PRINCIPAL,
  PROTECTED_GLOB,
  SETTING_KEYS,
  type SettingKey,
  type Settings,
  type SettingsRecord,
} from '../records/settings.js';
import { sanitizeLine } from '../core/sanitize.js';
import { Conflict, UnsafeEnvironment, UsageError } from '../core/refusals.js';
import { formatDuration, parseDuration } from '../core/duration.js';
import type { Repo } from '../repo/repo.js';
import { hasSigningKey, writeSettingsCommit } from './commit.js';
import { refuseSettingsWriteFromLane } from './guard.js';
import { readAllowedSigners, type AllowedSigners } from '../repo/settings-trust/signers.js';
import { repositoryRoot } from '../repo/settings-trust/repository.js';
import { rememberOwnGeneration, verifyOwnGeneration, type SettingsTrust } from '../repo/settings-trust/trust.js';
import { readSnapshot, type RefusedEntry } from '../repo/snapshot.js';

export interface SettingsData {
  settings: Settings;
  /** Who wrote the generation in force, absent while the defaults apply. */
  by?: string;
  at?: number;
  changed?: SettingKey;
  trust: SettingsTrust;
  /** A settings tip ignored because the person did not sign it. */
  ignored?: RefusedEntry;
  /** The generation this call wrote was signed. */
  signed?: boolean;
}

/**
 * Reads the person's settings, or writes one key with a lease on the tip read. With an
 * allowed-signers list the generation is signed and checked against the list before it is
 * pushed; a lane never writes.
 */
export async function settings(repo: Repo, input: { key?: string; value?: string; lane?: boolean }): Promise<SettingsData> {
  const writing = input.key !== undefined && input.value !== undefined;
  if (writing) refuseSettingsWriteFromLane({ laneName: repo.deps.config.lane, ...(input.lane ? { lane: true } : {}) });
  const snap = await readSnapshot(repo);
  const refused = snap.refused.get(SETTINGS_REF);
  if (refused) throw refused.refusal;
  const current = snap.settingsEntry;
  const trust = snap.settingsTrust;
  const base: SettingsData = {
    settings: snap.settings,
    trust,
    ...(current ? { by: formatHolder(current.record.by), at: current.record.at } : {}),
    ...(snap.settingsIgnored ? { ignored: snap.settingsIgnored } : {}),
  };
  if (input.key === undefined) return base;
  const key = checkKey(input.key);
  if (input.value === undefined) return base;
  const spec = SETTING_KEYS[key];
  const value = parseValue(key, input.value);
  const now = repo.deps.clock.now();
  // Named once in every generation: a reader that keeps the list ignores one for another repository.
  const repository = await repositoryRoot(repo);
  const list = await readAllowedSigners(repo.deps.config.configDir);
  if (list && !repository) {
    throw new UsageError(
      "the remote has no main branch yet, and signed settings name their repository by main's first commit; nothing was written. " +
        'Push a first commit to main, then run the command again.',
      'no-main',
      { main: 'main' },
    );
  }
  const record: SettingsRecord = {
    abcd: 'settings',
    v: 1,
    ...snap.settings,
    requesters: [...snap.settings.requesters],
    protectedPaths: [...snap.settings.protectedPaths],
    [spec.field]: value,
    ...(repository ? { repository } : {}),
    at: now,
    by: repo.me,
  };
  // The lease is the remote's tip even when it was ignored: the new generation goes on top.
  const lease = snap.settingsTip ?? null;
  const message = `settings: ${key} = ${sanitizeLine(input.value, 200)}`;
  const { tip, sign } = await pushGeneration(repo, { record, message, lease, list, signers: trust.signers, now });
  const { ignored: _ignored, ...rest } = base;
  return {
    ...rest,
    settings: { ...snap.settings, [spec.field]: value },
    by: formatHolder(repo.me),
    at: now,
    changed: key,
    trust: { ...trust, generation: tip },
    signed: sign,
  };
}

/**
 * Writes the generation on the tip read, signed when the settings are protected or the person
 * has a key, checks a protected one against the list, and pushes it with the lease.
 */
async function pushGeneration(
  repo: Repo,
  g: {
    record: SettingsRecord;
    message: string;
    lease: string | null;
    list: AllowedSigners | undefined;
    signers: SettingsTrust['signers'];
    now: number;
  },
): Promise<{ tip: string; sign: boolean }> {
  const { record, message, lease, list, signers, now } = g;
  // Protected settings are always signed; unprotected ones when the person has a key set up.
  const sign = Boolean(list) || (await hasSigningKey(repo.git));
  const tip = await writeSettingsCommit({
    git: repo.git,
    content: encodeSettings(record),
    parent: lease,
    message,
    author: repo.author,
    atMs: now,
    sign,
    signers,
  });
  if (list && (await verifyOwnGeneration(repo, tip, list)) !== 'good') {
    throw new UnsafeEnvironment(
      `your signing key is not in the allowed-signers list ${list.path}, so every reader would ignore this settings generation; ` +
        'nothing was written. Add your public key there ("you@example.com ssh-ed25519 AAAA...") or sign with a listed key.',
      { reason: 'settings-signer-not-allowed', signers: list.path },
    );
  }
  const r = await repo.store.push([{ ref: SETTINGS_REF, newOid: tip, lease }], { atomic: true });
  if (!r.ok) {
    throw new Conflict('the settings record changed while writing it; nothing was written. Read it again (abcd settings) and retry.', {
      ref: SETTINGS_REF,
    });
  }
  if (list) await rememberOwnGeneration(repo, list, { oid: tip, at: now });
  return { tip, sign };
}

function checkKey(key: string): SettingKey {
  if (key in SETTING_KEYS) return key as SettingKey;
  throw new UsageError(`unknown setting "${key}"; the settings are ${Object.keys(SETTING_KEYS).join(', ')}.`, 'setting', { key });
}

function parseValue(key: SettingKey, text: string): number | string[] {
  const spec = SETTING_KEYS[key];
  if ('list' in spec) return parsePrincipals(text);
  if ('globs' in spec) return parseGlobs(text);
  const value = spec.duration ? parseDuration(text, key) : parseCount(text, key);
  if (value < spec.min || value > spec.max) {
    const show = (n: number) => (spec.duration ? formatDuration(n) : String(n));
    throw new UsageError(`${key} must be from ${show(spec.min)} to ${show(spec.max)}, got ${text}.`, 'value', { key, value: text });
  }
  return value;
}

/** `a@x,b@y` (or `none`): the signer principals besides the person whose signed requests count. */
function parsePrincipals(text: string): string[] {
  if (text.trim() === '' || text.trim() === 'none') return [];
  const list = [...new Set(text.split(',').map((p) => p.trim()))];
  const bad = list.find((p) => !PRINCIPAL.test(p));
  if (bad !== undefined || list.length > MAX_REQUESTERS) {
    throw new UsageError(
      `requesters is a comma-separated list of at most ${MAX_REQUESTERS} signer principals as your allowed-signers list names them ` +
        `(a@example.com,b@example.com), or none; ${bad !== undefined ? `"${bad.slice(0, 60)}" is not one` : `got ${list.length}`}.`,
      'value',
      { key: 'requesters', value: text.slice(0, 200) },
    );
  }
  return list;
}

/** `a/**,b.json` (or `none`): globs a lane's change may not land without the person, on top of the built-in ones. */
function parseGlobs(text: string): string[] {
  if (text.trim() === '' || text.trim() === 'none') return [];
  const list = [...new Set(text.split(',').map((p) => p.trim()))];
  const bad = list.find((p) => !PROTECTED_GLOB.test(p));
  if (bad !== undefined || list.length > MAX_PROTECTED_GLOBS) {
    throw new UsageError(
      `protected-paths is a comma-separated list of at most ${MAX_PROTECTED_GLOBS} repository-relative globs (infra/**,Makefile,*.nix), ` +
        `or none; ${bad !== undefined ? `"${bad.slice(0, 60)}" is not one (no leading /, no .., no spaces)` : `got ${list.length}`}.`,
      'value',
      { key: 'protected-paths', value: text.slice(0, 200) },
    );
  }
  return list;
}

function parseCount(text: string, key: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new UsageError(`${key} must be a whole number, got "${text}".`, 'value', { key, value: text });
  return Number(text);
}
