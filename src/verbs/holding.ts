import { formatHolder, sameSession } from '../records/holder.js';
import { Fenced, NotHolder } from '../refusals.js';
import type { Repo } from './repo.js';
import type { ClaimEntry, Snapshot } from './snapshot.js';

/**
 * The claim on `ref` if this session holds it. Otherwise a refusal: Fenced (exit 5) when
 * this session held it and the tip moved on, NotHolder (exit 3) when it never did.
 */
export async function requireMine(repo: Repo, snap: Snapshot, ref: string, item: string): Promise<ClaimEntry> {
  const refused = snap.refused.get(ref);
  if (refused) throw refused.refusal;
  const entry = snap.claims.get(ref);
  if (entry && entry.claim.state === 'held' && sameSession(entry.claim.holder, repo.me)) return entry;
  const now = entry
    ? `it is now ${entry.claim.state} by ${formatHolder(entry.claim.holder)} (generation ${entry.claim.gen})`
    : 'it has no claim on the remote';
  const data = {
    item,
    ref,
    session: formatHolder(repo.me),
    ...(entry ? { holder: formatHolder(entry.claim.holder), state: entry.claim.state, tip: entry.tip } : {}),
  };
  if (await repo.held.has(ref)) {
    throw new Fenced(
      `your claim on ${item} moved on: ${now}. Nothing was pushed. Reserve it again (abcd reserve ${item}) ` +
        'and reconcile with what the new holder did.',
      data,
    );
  }
  throw new NotHolder(`this session (${formatHolder(repo.me)}) does not hold ${item}: ${now}. Run abcd reserve ${item} first.`, data);
}

/** The refusal for a claim that moved under a push this session made while holding it. */
export function fencedAfterPush(item: string, ref: string, lease: string, remoteTip: string | null): Fenced {
  return new Fenced(
    `your claim on ${item} moved on while pushing (expected tip ${lease.slice(0, 12)}, the remote has ` +
      `${remoteTip ? remoteTip.slice(0, 12) : 'no claim'}). The remote refused the whole push: nothing changed. ` +
      `Run abcd status to see the new holder.`,
    { item, ref, expected: lease, actual: remoteTip },
  );
}
