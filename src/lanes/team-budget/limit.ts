// Which team budget limit counts: the person's alone, as with settings (ADR 0019, 0112). With an
// allowed-signers list, a limit generation counts only when its commit is signed by a listed key
// and it names this repository; an unsigned or foreign tip gives way to the newest valid
// generation behind it, and is named as ignored. Without a list the tip counts if it names this
// repository, shown as unprotected. Verdicts are cached by commit, so the common read (a tip
// already verified) starts no process.
import { join } from 'node:path';
import { RECORD_FILE, TEAM_BUDGET_REF } from '../../records/refs.js';
import { decodeTeamBudget, type TeamBudgetRecord } from '../../records/team-budget.js';
import { isRefusal } from '../../core/refusals.js';
import type { Repo } from '../../repo/repo.js';
import type { Snapshot } from '../../repo/snapshot.js';
import { allowedSignersPath, readAllowedSigners, type AllowedSigners } from '../../repo/settings-trust/signers.js';
import { readTrustCache, writeTrustCache } from '../../repo/settings-trust/cache.js';
import { listGenerations, verifyGeneration, writeSshSigners } from '../../repo/settings-trust/verify.js';
import { repositoryRoot } from '../../repo/settings-trust/repository.js';
import type { TeamLimit } from './ledger.js';
import { unlessRefusal } from '../../core/best-effort.js';

// A reader looks this far back for a valid generation (each signed one costs a verify-commit).
const MAX_GENERATIONS_WALKED = 200;
const MAX_SIGNATURES_VERIFIED = 16;

export interface LimitVerdict {
  /** The limit in force; undefined: no team pool (none set, or none valid). */
  limit?: TeamLimit;
  /** Whether a limit must be signed by a key in the person's list to count. */
  protected: boolean;
  signers: string;
  /** The remote's tip when it does not count, and why. */
  ignored?: { tip: string; why: 'unsigned' | 'untrusted' | 'foreign' };
  /**
   * A limit is on the remote but no generation of it is the person's: no cycle starts (fails
   * closed), or replacing the ref with an unsigned commit would lift the team's bound.
   */
  untrusted?: true;
}

/**
 * The team limit this clone honours, from a snapshot. A tip this abcd cannot read (a newer
 * version) is refused by the caller before this is asked (rule 3).
 */
export async function judgeTeamLimit(repo: Repo, snap: Snapshot): Promise<LimitVerdict> {
  const list = await readAllowedSigners(repo.deps.config.configDir);
  const signers = list?.path ?? allowedSignersPath(repo.deps.config.configDir);
  const entry = snap.teamBudget;
  if (!entry) return { protected: Boolean(list), signers };
  const root = await repositoryRoot(repo).catch(unlessRefusal(undefined));
  const ours = (r: TeamBudgetRecord) => root !== undefined && r.repository === root;
  if (!list) {
    return ours(entry.record)
      ? { limit: asLimit(entry.tip, entry.record), protected: false, signers }
      : { protected: false, signers, ignored: { tip: entry.tip, why: 'foreign' } };
  }
  const found = await newestValid(repo, { tip: entry.tip, tipRecord: entry.record, list, ours });
  if (found.oid === entry.tip) return { limit: asLimit(found.oid, found.record!), protected: true, signers };
  return {
    ...(found.record ? { limit: asLimit(found.oid!, found.record) } : { untrusted: true as const }),
    protected: true,
    signers,
    ignored: { tip: entry.tip, why: found.tipWhy },
  };
}

function asLimit(oid: string, r: TeamBudgetRecord): TeamLimit {
  return { oid, tokens: r.tokens, usd: r.usd, at: r.at, by: r.by };
}

async function newestValid(
  repo: Repo,
  o: { tip: string; tipRecord: TeamBudgetRecord; list: AllowedSigners; ours: (r: TeamBudgetRecord) => boolean },
): Promise<{ oid?: string; record?: TeamBudgetRecord; tipWhy: 'unsigned' | 'untrusted' | 'foreign' }> {
  const cachePath = join(repo.commonDir, 'abcd', 'team-budget-trust.json');
  const cache = await readTrustCache(cachePath, o.list.hash);
  // The common read: the tip was verified before, and the snapshot already decoded it.
  if (cache.verdicts[o.tip] === 'good' && o.ours(o.tipRecord)) return { oid: o.tip, record: o.tipRecord, tipWhy: 'foreign' };
  const before = JSON.stringify(cache);
  const sshFile = join(repo.commonDir, 'abcd', 'allowed-signers.ssh');
  if (o.list.sshLines.length) await writeSshSigners(sshFile, o.list);
  let tipWhy: 'unsigned' | 'untrusted' | 'foreign' = 'untrusted';
  let verified = 0;
  let found: { oid?: string; record?: TeamBudgetRecord } = {};
  for (const gen of await listGenerations(repo.git, o.tip, MAX_GENERATIONS_WALKED)) {
    let verdict = cache.verdicts[gen.oid];
    if (!verdict) {
      if (gen.sig && ++verified > MAX_SIGNATURES_VERIFIED) break;
      verdict = await verifyGeneration({ git: repo.git, gen, list: o.list, sshFile });
      // A failed check may be this machine's (a key not yet imported): only lasting verdicts are kept.
      if (verdict !== 'untrusted') cache.verdicts[gen.oid] = verdict;
    }
    const record = gen.oid === o.tip ? o.tipRecord : await readGeneration(repo, gen.oid);
    if (gen.oid === o.tip) tipWhy = verdict === 'good' ? 'foreign' : verdict === 'unsigned' ? 'unsigned' : 'untrusted';
    if (verdict === 'good' && record && o.ours(record)) {
      found = { oid: gen.oid, record };
      break;
    }
  }
  if (JSON.stringify(cache) !== before) await writeTrustCache(cachePath, cache);
  return { ...found, tipWhy };
}

async function readGeneration(repo: Repo, oid: string): Promise<TeamBudgetRecord | undefined> {
  const blob = await repo.git.objects.readBlobAt(oid, RECORD_FILE);
  if (!blob) return undefined;
  try {
    return decodeTeamBudget(TEAM_BUDGET_REF, blob);
  } catch (e) {
    if (isRefusal(e)) return undefined;
    throw e;
  }
}
