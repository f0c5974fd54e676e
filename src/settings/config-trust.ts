// A lane runs only under a `.abcd/config.json` whose loosening of the sandbox the person vouched
// for (ADR 0104). Vouched: the config as a commit on main's first-parent history signed by a key
// in the allowed-signers list set it, or a config blob the person approved (`abcd land
// --approve` writes it into a signed settings generation). The config at main's tip is compared
// with the newest vouched one (repo/config-loosening.ts); a loosening is refused naming the key
// and the first unvouched commit that made it. Without a list nothing can be vouched: the
// config is unprotected, as unsigned settings are, and the lane says so.
import { join } from 'node:path';
import { unlessRefusalOrSystemError } from '../core/best-effort.js';
import { RECORD_FILE } from '../records/refs.js';
import { decodeSettings } from '../records/settings.js';
import { ConfigUnsigned, isRefusal } from '../core/refusals.js';
import { CONFIG_PATH, parseRepoConfig, type RepoConfig } from '../repo/config.js';
import { looseningsOf } from '../repo/config-loosening.js';
import type { Repo } from '../repo/repo.js';
import type { Snapshot } from '../repo/snapshot.js';
import { readAllowedSigners, type AllowedSigners } from '../repo/settings-trust/signers.js';
import { repositoryRoot } from '../repo/settings-trust/repository.js';
import { readTrustCache, trustCachePath, writeTrustCache, type TrustCache } from '../repo/settings-trust/cache.js';
import { listGenerations, readSignatureKinds, verifyGeneration, writeSshSigners, type Generation } from '../repo/settings-trust/verify.js';

// How far back main's config history and the settings' approvals are looked through.
const MAX_CONFIG_COMMITS = 100;
const MAX_SETTINGS_GENERATIONS = 200;
// Signatures verified per read at most (each a process); verdicts are cached by commit.
const MAX_SIGNATURES_VERIFIED = 32;

export type ConfigTrust = { protected: false } | { protected: true; vouched: string | null };

/** Refuses (exit 7, ConfigUnsigned) when main's config loosens the sandbox unvouched; else says how it stands. */
export async function refuseUnvouchedConfig(repo: Repo, o: { mainTip: string; snap: Snapshot }): Promise<ConfigTrust> {
  const list = await readAllowedSigners(repo.deps.config.configDir);
  if (!list) return { protected: false };
  const history = await configHistory(repo, o.mainTip);
  if (!history.length) return { protected: true, vouched: null };
  const cachePath = trustCachePath(repo);
  const cache = await readTrustCache(cachePath, list.hash);
  const before = JSON.stringify(cache);
  const judge = await signatureJudge(repo, list, cache);
  const approved = await approvedConfigs(repo, o.snap, judge);
  let baseline: (typeof history)[number] | undefined;
  const signed = await judge.commits(history.map((h) => h.commit));
  for (const h of history) {
    if ((h.blob && approved.has(h.blob)) || signed.has(h.commit)) {
      baseline = h;
      break;
    }
  }
  if (JSON.stringify(cache) !== before) await writeTrustCache(cachePath, cache);
  if (baseline && baseline === history[0]) return { protected: true, vouched: baseline.commit };
  const trusted = baseline ? await configOf(repo, baseline) : {};
  const judged = { checksJudged: Boolean(baseline) };
  const now = await configOf(repo, history[0]!);
  const [key] = looseningsOf(trusted, now, judged);
  if (!key) return { protected: true, vouched: baseline?.commit ?? null };
  // The first commit after the baseline whose config loosened that key: the one to sign or revert.
  const newer = history.slice(0, baseline ? history.indexOf(baseline) : history.length).reverse();
  let culprit = history[0]!;
  for (const h of newer) {
    if (looseningsOf(trusted, await configOf(repo, h), judged).includes(key)) {
      culprit = h;
      break;
    }
  }
  throw new ConfigUnsigned(
    `${CONFIG_PATH} on main loosens ${key} (set by commit ${culprit.commit.slice(0, 12)}) against ` +
      `${baseline ? `the config the person last vouched for, at ${baseline.commit.slice(0, 12)}` : 'the defaults (the person never vouched for a config)'}, ` +
      `and no key in ${list.path} signed that commit nor approved that config; the lane did not start. ` +
      'The person approves it (abcd land <item> --approve <run> for a lane run, or a commit they sign that sets it), or reverts it.',
    { key, commit: culprit.commit, baseline: baseline?.commit ?? null, signers: list.path },
  );
}

interface ConfigCommit {
  commit: string;
  /** The config's blob at that commit; null where the commit deleted it. */
  blob: string | null;
}

/** main's first-parent commits that changed the config, newest first, each with its blob (two processes). */
async function configHistory(repo: Repo, tip: string): Promise<ConfigCommit[]> {
  const out = await repo.git.history.log({
    revs: [tip],
    paths: [CONFIG_PATH],
    firstParent: true,
    maxCount: MAX_CONFIG_COMMITS,
    format: '%H',
  });
  const commits = out.split('\n').filter(Boolean);
  if (!commits.length) return [];
  const r = await repo.git.objects.tryInfos(commits.map((c) => `${c}:${CONFIG_PATH}`));
  const infos = r.ok ? r.value : [];
  return commits.map((commit, i) => {
    const info = infos[i];
    return { commit, blob: info?.type === 'blob' ? info.oid : null };
  });
}

async function configOf(repo: Repo, c: ConfigCommit): Promise<RepoConfig> {
  if (!c.blob) return {};
  const text = await repo.git.objects.mustReadText(c.blob);
  try {
    return parseRepoConfig(text, `${CONFIG_PATH} at ${c.commit.slice(0, 12)}`);
  } catch (e) {
    // A config the schema refuses grants nothing: judged as the defaults.
    if (isRefusal(e)) return {};
    throw e;
  }
}

interface SignatureJudge {
  /** The commits of `oids` signed by a listed key. */
  commits(oids: readonly string[]): Promise<Set<string>>;
  one(gen: Generation): Promise<boolean>;
}

function signatureJudgeOf(repo: Repo, list: AllowedSigners, cache: TrustCache, sshFile: string): SignatureJudge {
  let verified = 0;
  const one = async (gen: Generation): Promise<boolean> => {
    const known = cache.verdicts[gen.oid];
    if (known) return known === 'good';
    if (!gen.sig) return false;
    if (++verified > MAX_SIGNATURES_VERIFIED) return false;
    const verdict = await verifyGeneration({ git: repo.git, gen, list, sshFile });
    if (verdict !== 'untrusted') cache.verdicts[gen.oid] = verdict;
    return verdict === 'good';
  };
  return {
    one,
    async commits(oids) {
      const out = new Set<string>();
      for (const gen of await readSignatureKinds(repo.git, oids)) if (await one(gen)) out.add(gen.oid);
      return out;
    },
  };
}

async function signatureJudge(repo: Repo, list: AllowedSigners, cache: TrustCache): Promise<SignatureJudge> {
  const sshFile = join(repo.commonDir, 'abcd', 'allowed-signers.ssh');
  if (list.sshLines.length) await writeSshSigners(sshFile, list);
  return signatureJudgeOf(repo, list, cache, sshFile);
}

/** The config blobs named by approvals in the person's signed settings generations for this repository. */
async function approvedConfigs(repo: Repo, snap: Snapshot, judge: SignatureJudge): Promise<Set<string>> {
  const out = new Set<string>();
  if (!snap.settingsTip) return out;
  // A root that cannot be fetched or kept (a refusal, a failed write) approves nothing: the config stays unapproved.
  const root = await repositoryRoot(repo).catch(unlessRefusalOrSystemError(undefined));
  if (!root) return out;
  for (const gen of await listGenerations(repo.git, snap.settingsTip, MAX_SETTINGS_GENERATIONS)) {
    if (!gen.sig) continue;
    const blob = await repo.git.objects.readBlobAt(gen.oid, RECORD_FILE);
    if (!blob) continue;
    let approval;
    try {
      const rec = decodeSettings('refs/heads/abcd/settings', blob);
      approval = rec.repository === root ? rec.approval : undefined;
    } catch (e) {
      if (isRefusal(e)) continue;
      throw e;
    }
    if (approval?.config && (await judge.one(gen))) out.add(approval.config);
  }
  return out;
}
