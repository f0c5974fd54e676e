// Writing a claim's next generation with other records in one atomic, fenced push.
import { encodeClaim, type Claim } from '../records/claim.js';
import { writeRecordCommit } from '../records/objects.js';
import type { RefUpdate } from '../records/store.js';
import type { PushGuard } from '../git/push-guard.js';
import type { PorcelainRef } from '../git/porcelain.js';
import type { Repo } from '../repo/repo.js';
import { BranchRefused, Conflict, RemoteUnavailable, type Refusal } from '../core/refusals.js';
import { fencedAfterPush } from './holding.js';

/** Another record written in the same push as the claim (a queue entry, a receipt). */
export interface RecordWrite {
  ref: string;
  lease: string | null;
  /** The record's JSON, or null to delete the record. */
  content: string | null;
  message: string;
}

export type ClaimPush =
  | { ok: true; tip: string; written: Map<string, string | null> }
  | {
      ok: false;
      /** The claim ref is no longer at the lease: someone else wrote it. */
      claimMoved: boolean;
      remoteTip: string | null;
      /** Where the remote's refs of this push are now. */
      remoteTips: Map<string, string | null>;
      /** Other refs the remote refused (work branch, tags, main). */
      rejected: PorcelainRef[];
      /** A guard stopped the push before anything was sent (reserve from the cache, ADR 0039). */
      declined?: true;
    };

/**
 * Writes the claim's next generation as a new commit on the tip just read, pushed with an
 * explicit lease, together with other records and `extra` refs in ONE atomic push: if the claim moved, nothing lands.
 */
export async function pushClaim(
  repo: Repo,
  o: { ref: string; lease: string | null; claim: Claim; message: string; records?: RecordWrite[]; extra?: RefUpdate[]; guard?: PushGuard },
): Promise<ClaimPush> {
  const writes: RecordWrite[] = [{ ref: o.ref, lease: o.lease, content: encodeClaim(o.claim), message: o.message }, ...(o.records ?? [])];
  const updates = await recordUpdates(repo, writes, o.claim.at);
  updates.push(...(o.extra ?? []));
  const tip = updates[0]!.newOid!;
  let r;
  try {
    r = await repo.store.push(updates, { atomic: true, ...(o.guard ? { guard: o.guard } : {}) });
  } catch (e) {
    // The push may have landed: say which generation, so a keeper can recognise its own write.
    if (e instanceof RemoteUnavailable && e.data.outcome === 'unknown') e.data.attemptedTip = tip;
    throw e;
  }
  if (r.ok) return { ok: true, tip, written: new Map(updates.map((u) => [u.ref, u.newOid])) };
  if (r.declined) return { ok: false, claimMoved: false, remoteTip: null, remoteTips: new Map(), rejected: [], declined: true };
  const remoteTip = r.remoteTips.get(o.ref) ?? null;
  return {
    ok: false,
    claimMoved: claimMoved(r.remoteTips, o),
    remoteTip,
    remoteTips: r.remoteTips,
    // Lines for refs that failed only because another ref did are noise.
    rejected: r.rejected.filter((p) => p.reason !== 'atomic push failed' && !(p.ref === o.ref && claimMoved(r.remoteTips, o))),
  };
}

/** The ref updates that write `writes`, each a new record commit on its lease (or a deletion). */
export async function recordUpdates(repo: Repo, writes: readonly RecordWrite[], atMs: number): Promise<RefUpdate[]> {
  // Independent records are built side by side: each is three short local git processes.
  const oids = await Promise.all(
    writes.map(async (w) =>
      w.content === null
        ? null
        : writeRecordCommit({
            git: repo.git,
            store: repo.objects,
            content: w.content,
            parent: w.lease,
            message: w.message,
            author: repo.author,
            atMs,
          }),
    ),
  );
  return writes.map((w, i) => ({ ref: w.ref, newOid: oids[i] ?? null, lease: w.lease }));
}

function claimMoved(tips: Map<string, string | null>, o: { ref: string; lease: string | null }): boolean {
  return (tips.get(o.ref) ?? null) !== o.lease;
}

/**
 * The refusal for a claim push the remote refused: Fenced (exit 5) when the claim moved on,
 * otherwise Conflict (exit 3) naming each refused ref and git's reason (a hook, protection).
 */
export function refusePush(item: string, ref: string, lease: string | null, r: Extract<ClaimPush, { ok: false }>): Refusal {
  if (r.claimMoved) return fencedAfterPush(item, ref, lease ?? '', r.remoteTip);
  const why = r.rejected.map((p) => `${p.ref} (${p.reason ?? p.summary})`).join(', ') || 'no reason given';
  return new Conflict(
    `the remote refused ${why}; nothing changed (the push was atomic). ` +
      'If a hook or branch protection refuses it, ask the repository owner; if a branch moved, fetch and rebase.',
    { item, rejected: r.rejected.map((p) => ({ ref: p.ref, reason: p.reason ?? p.summary })) },
  );
}

/**
 * The work branch's update in a push under the claim. A branch is only ever fast-forwarded
 * (git's own rule for a push without force), unless the claim's own record says this session
 * pushed the head being replaced: a held claim's generations are written by its holder only,
 * each in one atomic push with the branch it names, so `claim.branch`/`claim.head` of the
 * claim requireMine returned are this session's last push. Then the remote branch is leased
 * on that head: a rebased branch replaces what this session pushed, and nothing else.
 */
export function workBranchUpdate(claim: Claim, branch: string, head: string): RefUpdate {
  const own = claim.state === 'held' && claim.branch === branch && claim.head !== undefined;
  return { ref: `refs/heads/${branch}`, newOid: head, ...(own ? { lease: claim.head } : {}) };
}

/**
 * The refusal for a push whose work branch the remote refused (not the claim): a rewrite of
 * a branch this claim did not push, or a branch that moved since this session pushed it.
 * undefined when the branch was not among the refused refs.
 */
export function refuseWorkBranch(o: { item: string; update: RefUpdate; rejected: PorcelainRef[] }): BranchRefused | undefined {
  const line = o.rejected.find((p) => p.ref === o.update.ref);
  if (!line) return undefined;
  const branch = o.update.ref.slice('refs/heads/'.length);
  const why = line.reason ?? line.summary;
  if (o.update.lease !== undefined) {
    return new BranchRefused(
      `${branch} moved on the remote since this session pushed ${o.update.lease?.slice(0, 12)} under ${o.item} (git: ${why}); ` +
        `nothing changed. Someone else pushed to it: fetch it, rebase your work onto it, and push again.`,
      { item: o.item, branch, reason: 'moved', expected: o.update.lease, git: why },
    );
  }
  return new BranchRefused(
    `${branch} on the remote is not an ancestor of your ${o.update.newOid?.slice(0, 12)} (git: ${why}), and this claim did not ` +
      `push what is there: abcd only fast-forwards such a branch. Nothing changed. Fetch it and build on top, or push to a new branch.`,
    { item: o.item, branch, reason: 'not-fast-forward', git: why },
  );
}
