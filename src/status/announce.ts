// `abcd announce`: write, renew or clear this session's announcement.
import { expiresAt } from '../records/timed.js';
import { announceKey, encodeAnnounce, type AnnounceRecord } from '../records/announce.js';
import { formatHolder } from '../records/holder.js';
import { formatItem, shortItem, type ItemKey } from '../records/item.js';
import { announceRef } from '../records/refs.js';
import { Conflict } from '../core/refusals.js';
import { writeRecordCommit } from '../records/objects.js';
import type { Repo } from '../repo/repo.js';

export interface AnnounceInput {
  state: AnnounceRecord['state'];
  item?: ItemKey;
  text: string;
  ttlMs: number;
}

export interface AnnounceResult {
  session: string;
  ref: string;
  state: AnnounceRecord['state'];
  item: string | null;
  text: string;
  at: number;
  expiresAt: number;
  ttlMs: number;
}

/**
 * Writes this session's announcement on its own record (a new generation on the tip read,
 * leased). Only this session writes it, so a lost lease means another process of the same
 * session announced at the same moment: say so rather than overwrite it.
 */
export async function announce(repo: Repo, input: AnnounceInput): Promise<AnnounceResult> {
  const ref = announceRef(announceKey(repo.me));
  // Its own record's tip is all a write needs: leased on, never decoded (a record it cannot
  // read is overwritten by this session's own, as every other session's are left alone).
  await repo.store.fetch();
  const lease = await repo.store.cachedTip(ref);
  const at = repo.deps.clock.now();
  const record: AnnounceRecord = {
    abcd: 'announce',
    v: 1,
    holder: repo.me,
    state: input.state,
    ...(input.item ? { item: formatItem(input.item) } : {}),
    text: input.text,
    at,
    ttl: input.ttlMs,
  };
  const oid = await writeRecordCommit({
    git: repo.git,
    store: repo.objects,
    content: encodeAnnounce(record),
    parent: lease,
    message: `announce ${input.state}`,
    author: repo.author,
    atMs: at,
  });
  const r = await repo.store.push([{ ref, newOid: oid, lease }], { atomic: true });
  if (!r.ok) {
    throw new Conflict('another process of this session announced at the same moment; nothing was written. Announce again.', { ref });
  }
  return {
    session: formatHolder(repo.me),
    ref,
    state: input.state,
    item: input.item ? shortItem(input.item) : null,
    text: input.text,
    at,
    expiresAt: expiresAt({ at, ttl: input.ttlMs }),
    ttlMs: input.ttlMs,
  };
}
