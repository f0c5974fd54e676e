// Settings are the person's alone (ADR 0019): with an allowed-signers list, a settings
// generation counts only when its commit is signed by a listed key. A reader walks the settings
// ref's first-parent history back to the newest valid generation and uses it, listing the
// ignored tip; verdicts are cached by commit under the git dir, so the common read (tip already
// verified) starts no process at all.
import { readFile, rename, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { RECORD_FILE, SETTINGS_REF } from '../records/refs.js';
import { DEFAULT_SETTINGS, decodeSettings, pickSettings, type SettingsRecord } from '../records/settings.js';
import { isRefusal, RecordInvalid } from '../refusals.js';
import type { Repo } from './repo.js';
import { readAllowedSigners, allowedSignersPath, type AllowedSigners } from './settings-signers.js';
import { listGenerations, verifyGeneration, writeSshSigners, type Verdict } from './settings-verify.js';
import type { RefusedEntry, Snapshot } from './snapshot.js';

// How far back a reader looks for a valid generation: unsigned commits cost nothing to skip
// (one rev-list reads them all), signed ones cost a git verify-commit each.
const MAX_GENERATIONS_WALKED = 1000;
const MAX_SIGNATURES_VERIFIED = 16;
// Verdicts kept in the cache file; older ones are verified again if ever needed.
const MAX_CACHED_VERDICTS = 256;

export interface SettingsTrust {
  /** Whether the person keeps an allowed-signers list (settings count only when signed). */
  protected: boolean;
  /** The list's path: where it is, or where the person would create it. */
  signers: string;
  /** The settings generation in force (a commit), absent on defaults. */
  generation?: string;
}

interface VerdictCache {
  list: string;
  verdicts: Record<string, Verdict>;
}

/**
 * Replaces an unsigned or wrongly signed settings tip in `snap` by the newest valid
 * generation (or the defaults), and records which tip was ignored. Without a list, changes
 * nothing but saying the settings are unprotected.
 */
export async function applySettingsTrust(repo: Repo, snap: Snapshot): Promise<void> {
  const list = await readAllowedSigners(repo.deps.env);
  const signers = list?.path ?? allowedSignersPath(repo.deps.env);
  const tip = snap.settingsTip;
  if (!list || !tip) {
    snap.settingsTrust = { protected: Boolean(list), signers, ...(snap.settingsEntry ? { generation: snap.settingsEntry.tip } : {}) };
    return;
  }
  const cachePath = join(repo.commonDir, 'abcd', 'settings-trust.json');
  const cache = await readCache(cachePath, list.hash);
  const before = JSON.stringify(cache.verdicts);
  const found = await findValidGeneration(repo, { tip, list, cache, decodedTip: snap.settingsEntry?.tip === tip });
  if (JSON.stringify(cache.verdicts) !== before) await writeCache(cachePath, cache);
  snap.settingsTrust = { protected: true, signers, ...(found ? { generation: found.oid } : {}) };
  // The tip is the person's: what decodeSnapshot made of it stands (a record, or its refusal).
  if (found?.oid === tip) return;
  // The tip is not the person's: whatever it holds (even unreadable) is ignored, not refused.
  snap.refused.delete(SETTINGS_REF);
  snap.settings = found?.record ? pickSettings(found.record) : { ...DEFAULT_SETTINGS };
  if (found?.record) snap.settingsEntry = { tip: found.oid, record: found.record };
  else delete snap.settingsEntry;
  snap.settingsIgnored = ignoredEntry({ tip, verdict: cache.verdicts[tip] ?? 'untrusted', using: found?.oid, signers });
}

async function findValidGeneration(
  repo: Repo,
  o: { tip: string; list: AllowedSigners; cache: VerdictCache; decodedTip: boolean },
): Promise<{ oid: string; record?: SettingsRecord } | undefined> {
  const { tip, list, cache } = o;
  // The common read: the tip was verified before, and the snapshot already decoded it.
  if (cache.verdicts[tip] === 'good') return { oid: tip };
  const sshFile = join(repo.commonDir, 'abcd', 'allowed-signers.ssh');
  if (list.sshLines.length) await writeSshSigners(sshFile, list);
  let verified = 0;
  for (const gen of await listGenerations(repo.git, tip, MAX_GENERATIONS_WALKED)) {
    let verdict = cache.verdicts[gen.oid];
    if (!verdict) {
      if (gen.sig && ++verified > MAX_SIGNATURES_VERIFIED) return undefined;
      verdict = await verifyGeneration({ git: repo.git, gen, list, sshFile });
      cache.verdicts[gen.oid] = verdict;
    }
    if (verdict !== 'good') continue;
    if (gen.oid === tip) return { oid: tip };
    const found = await readGeneration(repo, gen.oid);
    if (found) return found;
  }
  return undefined;
}

/** A signed generation's record; undefined when it cannot be read (the walk goes on past it). */
async function readGeneration(repo: Repo, oid: string): Promise<{ oid: string; record: SettingsRecord } | undefined> {
  const r = await repo.git.run(['cat-file', 'blob', `${oid}:${RECORD_FILE}`]);
  if (r.exitCode !== 0) return undefined;
  try {
    return { oid, record: decodeSettings(SETTINGS_REF, r.stdout) };
  } catch (e) {
    if (isRefusal(e)) return undefined;
    throw e;
  }
}

/**
 * Checks a generation this session is about to push: its own signature must count, or every
 * reader would ignore it. Returns the verdict and caches a good one.
 */
export async function verifyOwnGeneration(repo: Repo, oid: string, list: AllowedSigners): Promise<Verdict> {
  const sshFile = join(repo.commonDir, 'abcd', 'allowed-signers.ssh');
  if (list.sshLines.length) await writeSshSigners(sshFile, list);
  const [gen] = await listGenerations(repo.git, oid, 1);
  const verdict = gen ? await verifyGeneration({ git: repo.git, gen, list, sshFile }) : 'unsigned';
  const cachePath = join(repo.commonDir, 'abcd', 'settings-trust.json');
  const cache = await readCache(cachePath, list.hash);
  cache.verdicts[oid] = verdict;
  await writeCache(cachePath, cache);
  return verdict;
}

function ignoredEntry(o: { tip: string; verdict: Verdict; using?: string; signers: string }): RefusedEntry {
  const why = o.verdict === 'unsigned' ? 'is not signed' : 'is not signed by a key in the allowed-signers list';
  const instead = o.using ? `the last valid generation ${o.using.slice(0, 12)}` : 'the defaults (no valid generation found)';
  return {
    ref: SETTINGS_REF,
    tip: o.tip,
    refusal: new RecordInvalid(
      `settings generation ${o.tip.slice(0, 12)} ${why} (${o.signers}); abcd ignores it and uses ${instead}. ` +
        'Only the person changes the settings: run "abcd settings <key> <value>" with your signing key to write a valid one.',
      { ref: SETTINGS_REF, reason: o.verdict === 'unsigned' ? 'settings-unsigned' : 'settings-untrusted', tip: o.tip, ...(o.using ? { using: o.using } : {}) },
    ),
  };
}

async function readCache(path: string, list: string): Promise<VerdictCache> {
  try {
    const c = JSON.parse(await readFile(path, 'utf8')) as VerdictCache;
    if (c && c.list === list && c.verdicts && typeof c.verdicts === 'object') return c;
  } catch {
    // Missing or torn by a crash: verdicts are only a cache, verified again.
  }
  return { list, verdicts: {} };
}

async function writeCache(path: string, cache: VerdictCache): Promise<void> {
  const entries = Object.entries(cache.verdicts).slice(-MAX_CACHED_VERDICTS);
  await mkdir(join(path, '..'), { recursive: true });
  // Several processes may write at once: each renames a whole file, the last one wins, and a
  // lost verdict is only verified again.
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, JSON.stringify({ list: cache.list, verdicts: Object.fromEntries(entries) }));
  await rename(tmp, path);
}
