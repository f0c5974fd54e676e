// `abcd budget set <tokens> [--usd <d>] --team`: the person writes the team's limit on the
// remote, always signed and naming this repository (ADR 0112). An unsigned limit would be one
// anybody who can push could raise, so abcd refuses to write one at all.
import { TEAM_BUDGET_REF } from '../../records/refs.js';
import { encodeTeamBudget, type TeamBudgetRecord } from '../../records/team-budget.js';
import { Conflict, UnsafeEnvironment, UsageError } from '../../core/refusals.js';
import type { Repo } from '../../repo/repo.js';
import { readSnapshot } from '../../repo/snapshot.js';
import { hasSigningKey, writeSettingsCommit } from '../../settings/commit.js';
import { refuseSettingsWriteFromLane } from '../../settings/guard.js';
import { allowedSignersPath, readAllowedSigners } from '../../repo/settings-trust/signers.js';
import { repositoryRoot } from '../../repo/settings-trust/repository.js';
import { verifyOwnGeneration } from '../../repo/settings-trust/trust.js';
import { formatUsd } from '../../machine/budget/budget.js';

/** Writes a new team limit (a kind not named has no limit); the ledger's totals start again at 0. */
export async function setTeamBudget(repo: Repo, size: { tokens?: number; usd?: number }, o: { lane?: boolean } = {}): Promise<string> {
  refuseSettingsWriteFromLane({ laneName: repo.deps.config.lane, ...(o.lane ? { lane: true } : {}) });
  const list = await readAllowedSigners(repo.deps.config.configDir);
  const signers = list?.path ?? allowedSignersPath(repo.deps.config.configDir);
  await refuseUnsigned(repo, signers);
  const snap = await readSnapshot(repo);
  const refused = snap.refused.get(TEAM_BUDGET_REF);
  // A limit this abcd cannot read is not overwritten blind: a newer abcd wrote it (rule 3).
  if (refused && refused.refusal.code === 'record-too-new') throw refused.refusal;
  const repository = await repositoryRoot(repo);
  if (!repository) {
    throw new UsageError(
      "the remote has no main branch yet, and the team budget names its repository by main's first commit; nothing was written. " +
        'Push a first commit to main, then run the command again.',
      'no-main',
      { main: 'main' },
    );
  }
  const now = repo.deps.clock.now();
  const record: TeamBudgetRecord = {
    abcd: 'team-budget',
    v: 1,
    tokens: size.tokens ?? null,
    usd: size.usd ?? null,
    repository,
    at: now,
    by: repo.me,
  };
  const lease = refused?.tip ?? snap.teamBudget?.tip ?? null;
  const shown = shownSize(size);
  const tip = await writeSettingsCommit({
    git: repo.git,
    content: encodeTeamBudget(record),
    parent: lease,
    message: `budget: the team's pool is ${shown}`,
    author: repo.author,
    atMs: now,
    sign: true,
    signers,
    what: 'the team budget',
    counts: 'Team budgets',
  });
  if (list && (await verifyOwnGeneration(repo, tip, list)) !== 'good') {
    throw new UnsafeEnvironment(
      `your signing key is not in the allowed-signers list ${list.path}, so every reader would ignore this team budget; ` +
        'nothing was written. Add your public key there ("you@example.com ssh-ed25519 AAAA...") or sign with a listed key.',
      { reason: 'team-budget-signer-not-allowed', signers: list.path },
    );
  }
  const r = await repo.store.push([{ ref: TEAM_BUDGET_REF, newOid: tip, lease }], { atomic: true });
  if (!r.ok) {
    throw new Conflict('the team budget changed while writing it; nothing was written. Read it again (abcd budget --team) and retry.', {
      ref: TEAM_BUDGET_REF,
    });
  }
  return tip;
}

/** The team budget counts only when signed: without a signing key nothing is written. */
async function refuseUnsigned(repo: Repo, signers: string): Promise<void> {
  if (!(await hasSigningKey(repo.git))) {
    throw new UnsafeEnvironment(
      "the team budget is the person's alone and counts only when signed, and this clone's git has no signing key " +
        "(user.signingkey); nothing was written. Set up git's commit signing (git config gpg.format ssh; git config " +
        `user.signingkey ~/.ssh/id_ed25519.pub), list the key in ${signers}, and run the command again.`,
      { reason: 'team-budget-unsigned', signers },
    );
  }
}

/** The pool's size as the commit message says it. */
function shownSize(size: { tokens?: number; usd?: number }): string {
  return [
    ...(size.tokens !== undefined ? [`${size.tokens} tokens`] : []),
    ...(size.usd !== undefined ? [`$${formatUsd(size.usd)}`] : []),
  ].join(', ');
}
