// A batch head's lease (ADR 0097): a head that named its members holds them up, so it shows it
// is alive by something much shorter than its claim's ttl. While its land runs it rewrites its
// own entry every few seconds (`batch.beat` counts up, `batch.lease` says how long a reader
// waits), and a reader that has watched one tip of that entry for the lease, on its own
// monotonic clock (the sightings claims are judged by), takes the head for dead: its group is
// not formed, and its members take their turn again at once. Nothing is deleted on that
// judgement: the entry goes only when its claim lapses, and every landing is still leased on
// main, so a head that was only slow costs a re-test, never a wrong landing.
import { unlessRefusalOrSystemError } from '../../core/best-effort.js';
import { encodeQueue, type QueueRecord } from '../../records/queue.js';
import { sameSession } from '../../records/holder.js';
import { recordUpdates } from '../../claims/write.js';
import type { Repo } from '../../repo/repo.js';
import type { Snapshot } from '../../repo/snapshot.js';
import type { OwnEntry } from './batch-types.js';
import type { LandContext } from '../types.js';

/** How long a reader watches one tip of a head's entry before it takes the head for dead. */
export const BATCH_LEASE_MS = 15_000;
// How often a head rewrites its entry: five beats to a lease, so a slow push or two costs nothing.
const BEAT_EVERY_MS = 3_000;

/** The batch field of a head's entry naming `members`, with the next beat of its lease. */
export function leasedBatch(entry: QueueRecord, members: { ref: string; tip: string }[]): NonNullable<QueueRecord['batch']> {
  return { members, lease: BATCH_LEASE_MS, beat: (entry.batch?.beat ?? 0) + 1 };
}

/**
 * The heads of other sessions whose lease ran out as this clone watched: the same tip of
 * their entry seen for the lease or longer. One sighting file per leased entry.
 */
export async function staleHeads(repo: Repo, snap: Snapshot): Promise<Set<string>> {
  const out = new Set<string>();
  const now = repo.deps.clock.now();
  for (const q of snap.queue.values()) {
    const lease = q.entry.batch?.lease;
    if (!lease || sameSession(q.entry.holder, repo.me)) continue;
    const first = await repo.sightings.see(q.ref, q.tip, now);
    if (now - first >= lease) out.add(q.ref);
  }
  return out;
}

/**
 * Renews the lease of this land's entry while it heads a named batch: started once the members
 * are named, stopped before the push that settles the batch (which leases the entry's tip) and
 * when the land ends. Each beat is a push of the entry alone, leased on its tip, with no push
 * under the claim in flight (the keeper's chain).
 */
export class BatchLease {
  private loop?: Promise<void>;
  private stopper?: AbortController;
  // Beats pushed whose outcome was not heard (the remote away mid-push): one may be the entry's tip.
  private readonly attempted = new Map<string, QueueRecord>();

  constructor(
    private readonly ctx: LandContext,
    private readonly q: OwnEntry & { entry: QueueRecord },
  ) {}

  get running(): boolean {
    return this.loop !== undefined;
  }

  start(): void {
    if (this.loop) return;
    const stopper = new AbortController();
    this.stopper = stopper;
    const signal = AbortSignal.any([stopper.signal, this.ctx.keeper.signal]);
    const { clock } = this.ctx.repo.deps;
    this.loop = (async () => {
      while (!signal.aborted) {
        await clock.sleep(BEAT_EVERY_MS, signal);
        if (signal.aborted) return;
        // A remote briefly away costs a beat; one whose entry moved is no longer this head's.
        const kept = await this.ctx.keeper
          .exclusive(() => (signal.aborted ? Promise.resolve(true) : this.beat()))
          .catch(unlessRefusalOrSystemError(true));
        if (!kept) return;
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopper?.abort();
    await this.loop;
    this.loop = undefined;
  }

  /** One beat: the entry rewritten with the next count; false when its tip moved (someone else wrote it). */
  private async beat(): Promise<boolean> {
    const { repo } = this.ctx;
    const q = this.q;
    if (!q.entry.batch) return false;
    const entry: QueueRecord = { ...q.entry, batch: leasedBatch(q.entry, q.entry.batch.members) };
    const write = { ref: q.qref, lease: q.myEntryTip, content: encodeQueue(entry), message: `renew ${entry.item}'s batch lease` };
    const [update] = await recordUpdates(repo, [write], repo.deps.clock.now());
    const oid = update!.newOid!;
    this.attempted.set(oid, entry);
    const r = await repo.store.push([update!], { atomic: true });
    if (r.ok) return this.adopt(oid, entry);
    // An earlier beat that seemed lost did land: adopt it, and beat on top of it next time.
    const there = r.remoteTips.get(q.qref);
    const earlier = there ? this.attempted.get(there) : undefined;
    return there && earlier ? this.adopt(there, earlier) : false;
  }

  private adopt(tip: string, entry: QueueRecord): true {
    this.q.myEntryTip = tip;
    this.q.entry = entry;
    (this.q.written ??= new Set()).add(tip);
    this.attempted.clear();
    return true;
  }
}
