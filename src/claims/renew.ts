// Renewing or releasing this session's claim: its next generation, fenced by its tip.
import { expiresAt, type Claim } from '../records/claim.js';
import { shortItem, type ItemKey } from '../records/item.js';
import { sameSession } from '../records/holder.js';
import { claimRef } from '../records/refs.js';
import { pushClaim, refusePush } from './write.js';
import { MAX_CLAIM_MOVES, requireMine } from './holding.js';
import type { Repo } from '../repo/repo.js';
import { readSnapshot } from '../repo/snapshot.js';

export interface ClaimStep {
  item: string;
  ref: string;
  tip: string;
  gen: number;
  state: Claim['state'];
  expiresAt: number;
  ttlMs: number;
  /** False when there was nothing to write (releasing an item that landed). */
  written: boolean;
  /** The claim was already in this state, by this session's own last generation. */
  already?: boolean;
}

/** Writes this session's claim's next generation: renewed (held, fresh `at`) or released. */
export async function stepClaim(repo: Repo, input: { item: ItemKey; ttlMs?: number; state: 'held' | 'released' }): Promise<ClaimStep> {
  const item = shortItem(input.item);
  const ref = claimRef(input.item);
  for (let attempt = 1; ; attempt++) {
    const snap = await readSnapshot(repo);
    const current = snap.claims.get(ref);
    if (input.state === 'released' && current?.claim.state === 'released' && sameSession(current.claim.holder, repo.me)) {
      // Released by this session already (a run cut off after its push landed): done, not fenced.
      await repo.held.forget(ref);
      const c = current.claim;
      return {
        item,
        ref,
        tip: current.tip,
        gen: c.gen,
        state: c.state,
        expiresAt: expiresAt(c),
        ttlMs: c.ttl,
        written: false,
        already: true,
      };
    }
    // Releasing what this session landed has nothing to give up; writing `released` would erase
    // the done mark that keeps others (and lanes) from redoing landed work.
    if (
      input.state === 'released' &&
      current?.claim.state === 'done' &&
      !snap.refused.has(ref) &&
      sameSession(current.claim.holder, repo.me)
    ) {
      await repo.held.forget(ref);
      const c = current.claim;
      return { item, ref, tip: current.tip, gen: c.gen, state: 'done', expiresAt: expiresAt(c), ttlMs: c.ttl, written: false };
    }
    const entry = await requireMine(repo, snap, ref, item);
    const claim: Claim = {
      ...entry.claim,
      // A reopened item that is released again goes back to done: it still landed.
      state: input.state === 'released' && entry.claim.landed ? 'done' : input.state,
      gen: entry.claim.gen + 1,
      at: repo.deps.clock.now(),
      ttl: input.ttlMs ?? entry.claim.ttl,
    };
    const verb = input.state === 'held' ? 'renew' : 'release';
    const r = await pushClaim(repo, { ref, lease: entry.tip, claim, message: `${verb} ${claim.item} (generation ${claim.gen})` });
    if (r.ok)
      return finish(repo, {
        item,
        ref,
        tip: r.tip,
        gen: claim.gen,
        state: claim.state,
        expiresAt: expiresAt(claim),
        ttlMs: claim.ttl,
        written: true,
      });
    if (r.claimMoved && attempt < MAX_CLAIM_MOVES) continue;
    throw refusePush(item, ref, entry.tip, r);
  }
}

async function finish(repo: Repo, step: ClaimStep): Promise<ClaimStep> {
  // The released record is pruned by a later reader (status), not here: a delete right after
  // the write would cost this verb a third round trip.
  if (step.state !== 'held') {
    await repo.held.forget(step.ref);
  } else {
    await repo.held.remember(step.ref, step.tip);
  }
  return step;
}
