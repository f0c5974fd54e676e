// `abcd build <item>` while another lane holds the item never cancels that lane: it writes
// the item's single pending slot, replacing an older request (compare-and-swap on its tip:
// the newest wins), and the active lane or the next build/drain answers it.
import { formatHolder, type Holder } from '../../records/holder.js';
import { formatItem, shortItem, type ItemKey } from '../../records/item.js';
import { encodePending, type PendingRecord } from '../../records/pending.js';
import { pendingRef } from '../../records/refs.js';
import { NotRequester, RemoteUnavailable } from '../../core/refusals.js';
import { writeRecordCommit } from '../../records/objects.js';
import type { Repo } from '../../repo/repo.js';
import { readSnapshot, type Snapshot } from '../../repo/snapshot.js';
import { authorityOf } from '../../steering/requesters.js';
import { hasSigningKey, writeSettingsCommit } from '../../settings/commit.js';
import { provenSigner } from '../../repo/settings-trust/request-signers.js';
import { allowedSignersPath } from '../../repo/settings-trust/signers.js';

// An unanswered request stands this long; then pruning may remove it.
const PENDING_TTL_MS = 86_400_000;
// Requests racing for one slot: each loss means a newer one was just written, so retry a few times.
const MAX_LOST_RACES = 5;

export interface PendingOutcome {
  item: string;
  ref: string;
  tip: string;
  holder: string;
  replaced: boolean;
  coalesced: number;
  note?: string;
}

export async function requestFollowUp(
  repo: Repo,
  o: { snap: Snapshot; item: ItemKey; holder: Holder; note?: string },
): Promise<PendingOutcome> {
  const item = shortItem(o.item);
  const sign = await hasSigningKey(repo.git);
  const ref = pendingRef(o.item);
  let snap = o.snap;
  for (let lost = 0; ; lost++) {
    const old = snap.pending.get(ref);
    const now = repo.deps.clock.now();
    const rec: PendingRecord = {
      abcd: 'pending',
      v: 1,
      item: formatItem(o.item),
      requester: repo.me,
      at: now,
      ttl: PENDING_TTL_MS,
      ...(o.note !== undefined ? { note: o.note } : {}),
      coalesced: (old?.request.coalesced ?? 0) + 1,
    };
    const commit = { content: encodePending(rec), parent: old?.tip ?? null, message: `request a follow-up of ${rec.item}`, atMs: now };
    const oid = sign
      ? await writeSettingsCommit({
          git: repo.git,
          ...commit,
          author: repo.author,
          sign,
          signers: allowedSignersPath(repo.deps.config.configDir),
          what: 'the build request',
        })
      : await writeRecordCommit({ git: repo.git, ...commit, author: repo.author });
    await refuseUnproven(repo, { oid, item, holder: o.holder, snap });
    const r = await repo.store.push([{ ref, newOid: oid, lease: old?.tip ?? null }], { atomic: true });
    if (r.ok) {
      return {
        item,
        ref,
        tip: oid,
        holder: formatHolder(o.holder),
        replaced: Boolean(old),
        coalesced: rec.coalesced,
        ...(o.note !== undefined ? { note: o.note } : {}),
      };
    }
    if (lost >= MAX_LOST_RACES) {
      throw new RemoteUnavailable(
        `the pending slot ${ref} kept changing while this request was written; nothing was recorded. Try again.`,
        { outcome: 'unchanged', ref },
      );
    }
    snap = await readSnapshot(repo);
  }
}

/**
 * A request the holder's lane would not take creates nothing: with the person's list, one not
 * signed by a key it maps to that person or to a requester the settings name; without one, a
 * stated identity that is neither.
 */
async function refuseUnproven(repo: Repo, o: { oid: string; item: string; holder: Holder; snap: Snapshot }): Promise<void> {
  const proof = await provenSigner(repo, o.oid);
  if (authorityOf(proof, repo.me, { lane: o.holder, requesters: o.snap.settings.requesters })) return;
  const data = { item: o.item, holder: formatHolder(o.holder), requester: formatHolder(repo.me) };
  const who = proof.protected
    ? proof.principal
      ? `your commit is signed by ${proof.principal}, who is`
      : 'your request is not signed by a key in the allowed-signers list (git config user.signingkey), so it is'
    : `this session (${formatHolder(repo.me)}) is`;
  throw new NotRequester(
    `${o.item} is held by ${formatHolder(o.holder)}, and ${who} neither that person nor a requester the signed settings name ` +
      '(abcd settings requesters); no request was recorded. Ask the person to name you there, or wait for the lane to finish.',
    {
      ...data,
      reason: proof.protected && !proof.principal ? 'unsigned' : 'not-requester',
      ...(proof.principal ? { signedBy: proof.principal } : {}),
    },
  );
}
