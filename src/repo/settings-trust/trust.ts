// Settings are the person's alone (ADR 0019): with an allowed-signers list, a settings
// generation counts only when its commit is signed by a listed key. A reader walks the settings
// ref's first-parent history back to the newest valid generation and uses it, listing the
// ignored tip; verdicts are cached by commit under the git dir, so the common read (tip already
// verified) starts no process at all.
import { join } from 'node:path';
import { RECORD_FILE, SETTINGS_REF } from '../../records/refs.js';
import { DEFAULT_SETTINGS, decodeSettings, pickSettings, type SettingsRecord } from '../../records/settings.js';
import { unlessRefusalOrSystemError } from '../../core/best-effort.js';
import { isRefusal, RecordInvalid } from '../../core/refusals.js';
import type { Repo } from '../repo.js';
import { readAllowedSigners, allowedSignersPath, type AllowedSigners } from './signers.js';
import { readTrustCache, trustCachePath, writeTrustCache, type TrustCache } from './cache.js';
import { listGenerations, verifyGeneration, writeSshSigners, type Verdict } from './verify.js';
import type { RefusedEntry, SettingsCandidate, SettingsJudge, SettingsTrust, SettingsVerdict } from '../snapshot-types.js';

export type { SettingsTrust } from '../snapshot-types.js';
import { repositoryRoot } from './repository.js';

// How far back a reader looks for a valid generation: unsigned commits cost nothing to skip
// (one rev-list reads them all), signed ones cost a git verify-commit each.
const MAX_GENERATIONS_WALKED = 1000;
const MAX_SIGNATURES_VERIFIED = 16;

/** A generation that counts: its commit, and its record unless the candidate already holds it. */
interface Generation {
  oid: string;
  record?: SettingsRecord;
}

/** This clone's trust check as a snapshot's construction takes it (snapshot.ts buildSnapshot). */
export function settingsJudge(repo: Repo): SettingsJudge {
  return (candidate) => judgeSettings(repo, candidate);
}

/**
 * The verdict where the person keeps no allowed-signers list: the tip counts as it decoded,
 * shown as unprotected. `signers`: where the person would create the list.
 */
export function unprotectedSettings(signers: string): SettingsJudge {
  return (c) => Promise.resolve(standsAsDecoded(c, { protected: false, signers, ...(c.entry ? { generation: c.entry.tip } : {}) }));
}

function standsAsDecoded(c: SettingsCandidate, trust: SettingsTrust): SettingsVerdict {
  return {
    settings: c.entry ? pickSettings(c.entry.record) : { ...DEFAULT_SETTINGS },
    ...(c.entry ? { entry: c.entry } : {}),
    trust,
    ...(c.refused ? { refused: c.refused } : {}),
  };
}

/**
 * Which settings count: an unsigned or wrongly signed tip gives way to the newest valid
 * generation (or the defaults), and is named as ignored. Without a list, the tip counts and
 * the settings are shown as unprotected.
 */
async function judgeSettings(repo: Repo, c: SettingsCandidate): Promise<SettingsVerdict> {
  const list = await readAllowedSigners(repo.deps.config.configDir);
  const signers = list?.path ?? allowedSignersPath(repo.deps.config.configDir);
  if (!list) return unprotectedSettings(signers)(c);
  const { tip } = c;
  const cachePath = trustCachePath(repo);
  const cache = await readTrustCache(cachePath, list.hash);
  const before = JSON.stringify(cache);
  // A root the remote or the disk will not give is unknown: a generation naming one is then
  // ignored as foreign, the safe side. A bug is thrown on.
  const root = tip ? await repositoryRoot(repo).catch(unlessRefusalOrSystemError(undefined)) : undefined;
  const tipRecord = c.entry?.tip === tip ? c.entry?.record : undefined;
  const walk = tip ? await findValidGeneration(repo, { tip, tipRecord, list, cache, root }) : { foreign: false };
  let found = walk.found;
  const foundAt = found?.record?.at ?? (found?.oid === tip ? tipRecord?.at : undefined);
  const kept = await keepNewestSeen(repo, {
    cache,
    found,
    foundAt,
    tipRefused: Boolean(tip) && found?.oid === tip && foundAt === undefined,
  });
  if (kept) found = kept.generation;
  if (JSON.stringify(cache) !== before) await writeTrustCache(cachePath, cache);
  const trust: SettingsTrust = { protected: true, signers, ...(found ? { generation: found.oid } : {}) };
  // The tip is the person's: what decoding made of it stands (a record, or its refusal).
  if (tip && found?.oid === tip) return standsAsDecoded(c, trust);
  // The tip is not the person's, not this repository's, or older than what this clone saw: ignored, not refused.
  const verdict = walk.foreign ? 'foreign' : (kept?.why ?? (tip ? (cache.verdicts[tip] ?? 'untrusted') : undefined));
  return {
    settings: found?.record ? pickSettings(found.record) : { ...DEFAULT_SETTINGS },
    ...(found?.record ? { entry: { tip: found.oid, record: found.record } } : {}),
    trust,
    ...(verdict ? { ignored: ignoredEntry({ tip: tip ?? '', verdict, using: found?.oid, signers, ...(root ? { root } : {}) }) } : {}),
  };
}

/**
 * A valid generation older (by its signed `at`) than the newest this clone has seen, or no
 * valid generation where it saw one, means the ref was moved back or deleted: the person only
 * ever writes forward. A newer one must also descend from the newest seen (every write leases
 * the tip it read, so the person's own history is one line). Returns the newest seen to use
 * instead and why, or undefined when `found` stands.
 */
async function keepNewestSeen(
  repo: Repo,
  o: { cache: TrustCache; found?: Generation; foundAt?: number; tipRefused: boolean },
): Promise<{ generation?: Generation; why: 'rolled-back' | 'diverged' } | undefined> {
  const { cache, found, foundAt } = o;
  const newest = cache.newest;
  if (o.tipRefused) return undefined;
  if (found && foundAt !== undefined && (!newest || found.oid === newest.oid)) {
    cache.newest = { oid: found.oid, at: foundAt };
    return undefined;
  }
  if (found && foundAt !== undefined && newest && foundAt >= newest.at) {
    const r = await repo.git.refs.isAncestor(newest.oid, found.oid);
    // undefined: the newest seen is gone from this clone, so nothing is left to compare with.
    if (r !== false) {
      cache.newest = { oid: found.oid, at: foundAt };
      return undefined;
    }
    return { generation: await readGeneration(repo, newest.oid), why: 'diverged' };
  }
  if (!newest) return undefined;
  const kept = await readGeneration(repo, newest.oid);
  if (!kept) delete cache.newest; // its objects are gone: nothing left to hold on to
  return { ...(kept ? { generation: kept } : {}), why: 'rolled-back' };
}

/**
 * The newest generation from `tip` back that is signed by a listed key and names this
 * repository (`root`); `foreign` when a signed one named another (or none), so the reader can
 * say so by name.
 */
async function findValidGeneration(
  repo: Repo,
  o: { tip: string; tipRecord?: SettingsRecord; list: AllowedSigners; cache: TrustCache; root?: string },
): Promise<{ found?: Generation; foreign: boolean }> {
  const { tip, list, cache } = o;
  let foreign = false;
  const ours = (r: SettingsRecord | undefined) => {
    if (r && o.root !== undefined && r.repository === o.root) return true;
    foreign ||= r !== undefined;
    return false;
  };
  // The common read: the tip was verified before, and the snapshot already decoded it.
  if (cache.verdicts[tip] === 'good' && ours(o.tipRecord)) return { found: { oid: tip }, foreign };
  const sshFile = join(repo.commonDir, 'abcd', 'allowed-signers.ssh');
  if (list.sshLines.length) await writeSshSigners(sshFile, list);
  let verified = 0;
  for (const gen of await listGenerations(repo.git, tip, MAX_GENERATIONS_WALKED)) {
    let verdict = cache.verdicts[gen.oid];
    if (!verdict) {
      if (gen.sig && ++verified > MAX_SIGNATURES_VERIFIED) return { foreign };
      verdict = await verifyGeneration({ git: repo.git, gen, list, sshFile });
      rememberVerdict(cache, gen.oid, verdict);
    }
    if (verdict !== 'good') continue;
    if (gen.oid === tip) {
      // A tip the snapshot could not decode keeps its refusal (a newer version, say).
      if (!o.tipRecord || ours(o.tipRecord)) return { found: { oid: tip }, foreign };
      continue;
    }
    const found = await readGeneration(repo, gen.oid);
    if (found && ours(found.record)) return { found, foreign };
  }
  return { foreign };
}

/** A signed generation's record; undefined when it cannot be read (the walk goes on past it). */
async function readGeneration(repo: Repo, oid: string): Promise<Generation | undefined> {
  const blob = await repo.git.objects.readBlobAt(oid, RECORD_FILE);
  if (!blob) return undefined;
  try {
    return { oid, record: decodeSettings(SETTINGS_REF, blob) };
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
  const cachePath = trustCachePath(repo);
  const cache = await readTrustCache(cachePath, list.hash);
  rememberVerdict(cache, oid, verdict);
  await writeTrustCache(cachePath, cache);
  return verdict;
}

type IgnoredWhy = Verdict | 'rolled-back' | 'diverged' | 'foreign';

const IGNORED_BECAUSE: Record<IgnoredWhy, (o: { root?: string }) => string> = {
  good: () => 'is not signed by a key in the allowed-signers list',
  untrusted: () => 'is not signed by a key in the allowed-signers list',
  unsigned: () => 'is not signed',
  'rolled-back': () => 'is older than the newest one this clone has seen (the ref was moved back or deleted)',
  diverged: () => 'does not descend from the newest valid one this clone has seen (a signed generation replayed from elsewhere)',
  foreign: (o) =>
    `is signed but names another repository than this one (main's first commit ${o.root ? o.root.slice(0, 12) : 'is unknown: the remote has no main yet'}): ` +
    'a generation copied from another repository',
};

/**
 * Records a generation this session just pushed as the newest it has seen: the next
 * generation this clone accepts must descend from it. Only after the push: an unpushed one
 * would make the remote's real tip look rolled back.
 */
export async function rememberOwnGeneration(repo: Repo, list: AllowedSigners, g: { oid: string; at: number }): Promise<void> {
  const cachePath = trustCachePath(repo);
  const cache = await readTrustCache(cachePath, list.hash);
  cache.newest = { oid: g.oid, at: g.at };
  await writeTrustCache(cachePath, cache);
}

function ignoredEntry(o: { tip: string; verdict: IgnoredWhy; using?: string; signers: string; root?: string }): RefusedEntry {
  const why = IGNORED_BECAUSE[o.verdict](o);
  const instead = o.using ? `the last valid generation ${o.using.slice(0, 12)}` : 'the defaults (no valid generation found)';
  return {
    ref: SETTINGS_REF,
    tip: o.tip,
    refusal: new RecordInvalid(
      `settings generation ${o.tip.slice(0, 12) || '(none: the ref is gone)'} ${why} (${o.signers}); abcd ignores it and uses ${instead}. ` +
        'Only the person changes the settings: run "abcd settings <key> <value>" with your signing key to write a valid one.',
      {
        ref: SETTINGS_REF,
        reason: `settings-${o.verdict === 'good' ? 'untrusted' : o.verdict}`,
        tip: o.tip,
        ...(o.using ? { using: o.using } : {}),
      },
    ),
  };
}

/**
 * Only verdicts that cannot change are kept: a good signature, or none at all. A failed check
 * may be this machine's (gpg-agent down, a key not yet imported) and is made again next read.
 */
function rememberVerdict(cache: TrustCache, oid: string, verdict: Verdict): void {
  if (verdict !== 'untrusted') cache.verdicts[oid] = verdict;
}
