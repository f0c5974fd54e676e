// The push that settles a batch (ADR 0096), in one atomic, fenced push: main leased on the
// tested base and moved to the last piece, each landed member's claim `done` leased on the tip
// just read, their entries and work branches removed, each refused member's entry rewritten
// with its verdict, the head's own entry removed and its claim done or renewed.
import { encodeClaim } from '../../records/claim.js';
import { ConsumptionSchema } from '../../records/receipt.js';
import { sameSession } from '../../records/holder.js';
import { encodeQueue, type QueueRecord, type Verdict } from '../../records/queue.js';
import { claimRef, classifyRef } from '../../records/refs.js';
import type { RefUpdate } from '../../records/store.js';
import { sanitizeLine } from '../../core/sanitize.js';
import type { RecordWrite } from '../../claims/write.js';
import type { QueueEntry, Snapshot } from '../../repo/snapshot.js';
import type { Settled } from '../speculation/bisect.js';
import type { Failure, HeadEntry } from './batch-types.js';
import type { LandContext } from '../types.js';

// Pushes of the settled batch when only members' renewals moved their claims under it.
const SETTLE_TRIES = 5;

/**
 * The push that settles the batch. 'ok'; 'main-moved' when main is no longer the base; 'changed'
 * when a member's entry or claim is not what was tested (the batch is formed again).
 */
export async function pushSettled(
  ctx: LandContext,
  q: HeadEntry,
  s: Settled<QueueEntry, Failure>,
  base: string,
  last?: Snapshot,
): Promise<'ok' | 'main-moved' | 'changed'> {
  const { repo, target, keeper, item, input } = ctx;
  const landedRefs = new Set(s.pieces.flatMap((p) => p.members.map((m) => m.ref)));
  const pieceOf = (ref: string) => s.pieces.find((p) => p.members.some((m) => m.ref === ref))!;
  const size = landedRefs.size;
  const meLanded = landedRefs.has(q.qref);
  // The read just made (that main is the base) serves the first try; a failed push reads again.
  let known = last;
  for (let tries = 1; ; tries++) {
    const snap = known ?? (await target.read(repo));
    if (!known && (await target.mainTip()) !== base) return 'main-moved';
    known = undefined;
    const writes = landedMemberWrites(ctx, q, s, snap);
    if (writes === 'changed') return 'changed';
    const { records, extra } = writes;
    records.push(...refusedMemberWrites(item, q, s, snap));
    records.push({ ref: q.qref, lease: q.myEntryTip, content: null, message: `dequeue ${q.entry.item}: batch settled` });
    if (meLanded) records.push(...(input.alsoWrite?.(pieceOf(q.qref).landing) ?? []));
    if (s.pieces.length) extra.push({ ref: `refs/heads/${target.main}`, newOid: s.top, lease: base });
    if (meLanded && !input.keep) extra.push({ ref: `refs/heads/${target.branch}`, newOid: null, lease: target.head });
    const r = await keeper.push(
      (claim) => ({
        claim:
          meLanded && !input.keep
            ? {
                ...claim,
                state: 'done',
                landed: {
                  main: target.main,
                  tip: pieceOf(q.qref).landing,
                  batch: { by: item, size },
                  ...(input.consumed ? { run: input.consumed.runId } : {}),
                },
              }
            : claim,
        message: `settle ${item}'s batch on ${target.main}: ${size} landed, ${s.refused.length} refused`,
        records,
        extra,
      }),
      { via: repo },
    );
    if (r.ok) return 'ok';
    if ((r.remoteTips.get(`refs/heads/${target.main}`) ?? null) !== base) return 'main-moved';
    // A member renewed its claim between the read and the push: read again and lease its new tip.
    if (tries >= SETTLE_TRIES) return 'changed';
  }
}

/** Each landed member's claim done and its entry and work branch removed; 'changed' when one is not what was tested. */
function landedMemberWrites(
  ctx: LandContext,
  q: HeadEntry,
  s: Settled<QueueEntry, Failure>,
  snap: Snapshot,
): { records: RecordWrite[]; extra: RefUpdate[] } | 'changed' {
  const { repo, target, item } = ctx;
  const { clock } = repo.deps;
  const size = new Set(s.pieces.flatMap((p) => p.members.map((m) => m.ref))).size;
  const pieceOf = (ref: string) => s.pieces.find((p) => p.members.some((m) => m.ref === ref))!;
  const records: RecordWrite[] = [];
  const extra: RefUpdate[] = [];
  for (const m of s.pieces.flatMap((p) => p.members)) {
    if (m.ref === q.qref) continue;
    const now = snap.queue.get(m.ref);
    const cref = claimRef(classifyRef(m.ref)!.item!);
    const claim = snap.claims.get(cref);
    if (!now || now.tip !== m.tip || !claim || claim.claim.state !== 'held' || !sameSession(claim.claim.holder, m.entry.holder))
      return 'changed';
    const run = ConsumptionSchema.safeParse((m.entry as Record<string, unknown>).consumed);
    const landed = {
      main: target.main,
      tip: pieceOf(m.ref).landing,
      batch: { by: item, size },
      ...(run.success ? { run: run.data.runId } : {}),
    };
    const next = { ...claim.claim, gen: claim.claim.gen + 1, at: clock.now(), state: 'done' as const, landed };
    records.push({ ref: cref, lease: claim.tip, content: encodeClaim(next), message: `land ${m.item} in ${item}'s batch` });
    records.push({ ref: m.ref, lease: m.tip, content: null, message: `dequeue ${m.item}: landed in ${item}'s batch` });
    extra.push({ ref: `refs/heads/${m.entry.branch}`, newOid: null, lease: m.entry.head });
  }
  return { records, extra };
}

/** Each refused member's entry rewritten with its verdict, unless it left on its own. */
function refusedMemberWrites(item: string, q: HeadEntry, s: Settled<QueueEntry, Failure>, snap: Snapshot): RecordWrite[] {
  const records: RecordWrite[] = [];
  for (const r of s.refused) {
    if (r.member.ref === q.qref) continue;
    const now = snap.queue.get(r.member.ref);
    if (!now || now.tip !== r.member.tip) continue; // it left on its own: nothing to tell it
    const entry: QueueRecord = { ...now.entry, verdict: verdictOf(item, r.failure) };
    records.push({
      ref: r.member.ref,
      lease: r.member.tip,
      content: encodeQueue(entry),
      message: `refuse ${r.member.item} in ${item}'s batch`,
    });
  }
  return records;
}

function verdictOf(by: string, f: Failure): Verdict {
  if (f.kind === 'conflict') return { by, tested: f.tested, base: f.base, failure: { kind: 'conflict', files: f.error.data.files ?? [] } };
  const d = f.error.data;
  return {
    by,
    tested: f.tested,
    base: f.base,
    failure: {
      kind: 'check',
      check: sanitizeLine(d.check, 2000),
      exitCode: d.exitCode,
      timedOut: d.timedOut,
      output: d.output.slice(-8000),
      attempts: d.attempts ?? 1,
    },
  };
}
