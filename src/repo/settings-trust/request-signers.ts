// Who signed each request record (steer requests, pending slots): the same verification as the
// settings (git verify-commit against the person's allowed-signers list), and the same cache
// under the git dir, keyed by commit. A request's stated author is only a claim; this is the
// proof. Unsigned requests cost one process for all of them, signed ones a verify-commit each,
// once per clone. A signed steer proves nothing here when it names another repository, when
// its key was no longer valid at the time this clone first saw it, and once delivered it is
// never delivered again (ADR 0107).
import { join } from 'node:path';
import type { Repo } from '../repo.js';
import type { RequestTrust, Snapshot } from '../snapshot-types.js';
import { readTrustCache, trustCachePath, writeTrustCache, type TrustCache } from './cache.js';
import { allowedSignersPath, readAllowedSigners, type AllowedSigners } from './signers.js';
import { readSignatureKinds, verifySigner, writeSshSigners } from './verify.js';
import { readDelivered } from './delivered.js';
import { sshKeyValidAt } from './key-validity.js';
import { repositoryRoot } from './repository.js';

// Signed requests verified in one read; the rest count as unproven until a later read.
const MAX_REQUESTS_VERIFIED = 32;

export type { RequestTrust } from '../snapshot-types.js';

/** Works out who signed each steer and pending record in `snap` (snap.requestTrust). */
export async function readRequestTrust(repo: Repo, snap: Pick<Snapshot, 'steers' | 'pending'>): Promise<RequestTrust> {
  const list = await readAllowedSigners(repo.deps.config.configDir);
  const signers = list?.path ?? allowedSignersPath(repo.deps.config.configDir);
  const tips = [...snap.steers.values(), ...snap.pending.values()].map((e) => e.tip);
  const delivered = snap.steers.size ? await readDelivered(repo.commonDir) : new Set<string>();
  const by = list && tips.length ? await proveSigners(repo, list, tips) : new Map<string, string>();
  if (by.size && snap.steers.size) {
    const here = await repositoryRoot(repo);
    for (const s of snap.steers.values()) if (by.has(s.tip) && (!here || s.request.repository !== here)) by.delete(s.tip);
  }
  return { protected: Boolean(list), signers, by, delivered };
}

/** The principal that signed `oid` per the person's list, and whether there is a list at all. */
export async function provenSigner(repo: Repo, oid: string): Promise<{ protected: boolean; principal?: string }> {
  const list = await readAllowedSigners(repo.deps.config.configDir);
  if (!list) return { protected: false };
  const principal = (await proveSigners(repo, list, [oid])).get(oid);
  return { protected: true, ...(principal ? { principal } : {}) };
}

async function proveSigners(repo: Repo, list: AllowedSigners, tips: readonly string[]): Promise<Map<string, string>> {
  const cachePath = trustCachePath(repo);
  const cache = await readTrustCache(cachePath, list.hash);
  const known = (cache.principals ??= {});
  const out = new Map<string, string>();
  const unknown = [...new Set(tips)].filter((t) => known[t] === undefined);
  if (unknown.length) await verifyUnknown(repo, list, cache, unknown);
  for (const t of tips) if (known[t]) out.set(t, known[t]);
  return out;
}

async function verifyUnknown(repo: Repo, list: AllowedSigners, cache: TrustCache, oids: string[]): Promise<void> {
  const known = cache.principals!;
  const sshFile = join(repo.commonDir, 'abcd', 'allowed-signers.ssh');
  let wroteSsh = false;
  let verified = 0;
  let changed = false;
  for (const gen of await readSignatureKinds(repo.git, oids)) {
    if (!gen.sig) {
      known[gen.oid] = '';
      changed = true;
      continue;
    }
    if (++verified > MAX_REQUESTS_VERIFIED) break;
    if (!wroteSsh && list.sshLines.length) {
      await writeSshSigners(sshFile, list);
      wroteSsh = true;
    }
    const v = await verifySigner({ git: repo.git, gen, list, sshFile });
    // Judged when first seen: a key rotated out signs nothing dated back before its end.
    const seen = ((cache.seen ??= {})[gen.oid] ??= repo.deps.clock.now());
    changed = true;
    const valid =
      gen.sig !== 'ssh' ||
      (v.key !== undefined && sshKeyValidAt(list.sshLines, { principal: v.principal ?? '', fingerprint: v.key, at: seen }));
    if (v.verdict === 'good' && v.principal && !valid) known[gen.oid] = '';
    // A failed check may be this machine's (gpg-agent down): only a good one is kept.
    else if (v.verdict === 'good' && v.principal) known[gen.oid] = v.principal;
  }
  if (changed) await writeTrustCache(trustCachePath(repo), cache);
}
