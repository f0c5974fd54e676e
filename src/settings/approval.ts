// The person's approval of a lane's protected change is a generation of their signed settings
// (ADR 0103): the settings as they stand plus `approval`, naming the run, its head, its tree and
// the .abcd/config.json blob in it. Proven exactly as a settings change is (signed by a key in
// the allowed-signers list, naming this repository, descending from the newest valid
// generation), so nothing new has to be trusted, and lanes find the configs the person
// approved in the settings' own history (ADR 0104).
import { formatHolder } from '../records/holder.js';
import { SETTINGS_REF } from '../records/refs.js';
import { encodeSettings, type SettingsRecord } from '../records/settings.js';
import { Conflict, NotApproved, UnsafeEnvironment } from '../core/refusals.js';
import type { Repo } from '../repo/repo.js';
import type { Snapshot } from '../repo/snapshot.js';
import { readAllowedSigners, allowedSignersPath } from '../repo/settings-trust/signers.js';
import { repositoryRoot } from '../repo/settings-trust/repository.js';
import { rememberOwnGeneration, verifyOwnGeneration } from '../repo/settings-trust/trust.js';
import { writeSettingsCommit } from './commit.js';
import { LANE_ENV } from './guard.js';

export type Approval = NonNullable<SettingsRecord['approval']>;

/**
 * Signs and pushes one approval generation, or refuses (NotApproved, exit 7) before anything
 * is pushed: under a lane, without an allowed-signers list, when git cannot sign, or when the
 * key that signed is not on the list. Answers the generation's commit.
 */
export async function writeApproval(repo: Repo, snap: Snapshot, approval: Approval): Promise<string> {
  const { config } = repo.deps;
  const base = { item: approval.item, run: approval.run };
  const signersPath = allowedSignersPath(config.configDir);
  if (config.lane) {
    throw new NotApproved(
      `a lane may not approve work (${LANE_ENV}=${config.lane}); nothing was landed. Only the person approves, from their own session.`,
      { ...base, reason: 'lane', signers: signersPath },
    );
  }
  const list = await readAllowedSigners(config.configDir);
  const repository = await repositoryRoot(repo);
  if (!list || !repository) {
    throw new NotApproved(
      `an approval counts only when signed by a key in the person's allowed-signers list, and ${list ? 'the remote has no main yet to name the repository by' : `there is none at ${signersPath}`}; ` +
        'nothing was landed. Set up signing as docs/settings.md says, then approve again.',
      { ...base, reason: 'no-signers', signers: signersPath },
    );
  }
  const now = repo.deps.clock.now();
  const record: SettingsRecord = {
    abcd: 'settings',
    v: 1,
    ...snap.settings,
    requesters: [...snap.settings.requesters],
    protectedPaths: [...snap.settings.protectedPaths],
    repository,
    approval,
    at: now,
    by: repo.me,
  };
  const lease = snap.settingsTip ?? null;
  const tip = await signApproval(repo, record, { approval, base, lease, signers: list.path, now });
  if ((await verifyOwnGeneration(repo, tip, list)) !== 'good') {
    throw new NotApproved(
      `this session's signing key is not in the person's allowed-signers list ${list.path}: only the person approves a lane's change to ` +
        `protected paths; nothing was landed. The person runs: abcd land ${approval.item} --approve ${approval.run}.`,
      { ...base, reason: 'not-allowed', signers: list.path },
    );
  }
  const r = await repo.store.push([{ ref: SETTINGS_REF, newOid: tip, lease }], { atomic: true });
  if (!r.ok) {
    throw new Conflict(
      `the settings record changed while ${formatHolder(repo.me)} wrote the approval; nothing was landed. Approve again.`,
      { ref: SETTINGS_REF },
    );
  }
  await rememberOwnGeneration(repo, list, { oid: tip, at: now });
  return tip;
}

/** The approval generation's commit, signed; git that cannot sign is NotApproved. */
async function signApproval(
  repo: Repo,
  record: SettingsRecord,
  c: { approval: Approval; base: { item: string; run: string }; lease: string | null; signers: string; now: number },
): Promise<string> {
  const { approval, base, lease, signers, now } = c;
  let tip: string;
  try {
    tip = await writeSettingsCommit({
      git: repo.git,
      content: encodeSettings(record),
      parent: lease,
      message: `approve ${approval.item} run ${approval.run} at ${approval.head.slice(0, 12)}`,
      author: repo.author,
      atMs: now,
      sign: true,
      signers,
      what: 'the approval',
    });
  } catch (e) {
    if (!(e instanceof UnsafeEnvironment)) throw e;
    throw new NotApproved(e.message.replace(/Requests count/, 'Approvals count'), {
      ...base,
      reason: 'not-signed',
      signers,
      ...(typeof e.data.git === 'string' ? { git: e.data.git } : {}),
    });
  }
  return tip;
}
