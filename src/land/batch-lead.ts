// The head of a batch (ADR 0096): it stacks its own entry and the free live entries behind it
// on main (or on the predicted landing of the batches ahead), names them in its entry, tests
// the whole stack once, and, once main is the base it tested on, settles the batch (bisect.ts)
// and writes the outcome in ONE fenced push: main leased on that base and moved to the last
// piece, each landed member's claim `done` leased on its tip, their entries and branches gone,
// each refused member's entry rewritten with its verdict. Killed before that push, it has
// written nothing but its entry's member list: nothing landed, and the members take their
// turn again once its claim lapses.
import { encodeClaim } from '../records/claim.js';
import { claimRef, classifyRef } from '../records/refs.js';
import { sameSession } from '../records/holder.js';
import { encodeQueue, type QueueRecord, type Verdict } from '../records/queue.js';
import { CheckFailed, Conflict } from '../core/refusals.js';
import { sanitizeLine } from '../core/sanitize.js';
import type { RecordWrite } from '../claims/write.js';
import type { RefUpdate } from '../records/store.js';
import type { QueueEntry, Snapshot } from '../repo/snapshot.js';
import type { CheckRun } from './checks.js';
import { chooseCheckSandbox, runJailedChecks, type CheckSandboxChoice } from './check-sandbox.js';
import { settleBatch, type Outcome, type Settled } from './bisect.js';
import { stackBatch, type BatchStack } from './batch-stack.js';
import type { Group } from './batch-groups.js';
import { entryIntegration, fetchHeads } from './speculation.js';
import { entryGone, interrupted } from './turn.js';
import type { OwnEntry } from './batch-follow.js';
import type { LandContext, Landed } from './types.js';
import { integrate, withWorktree } from './worktree.js';

// Pushes of the settled batch when only members' renewals moved their claims under it.
const SETTLE_TRIES = 5;
// How often the head re-reads main while the batches ahead land.
const PARENT_POLL_MS = 250;
// A bisection's tests wait for a gate slot at least this long, whatever --wait has left: they are
// the batch's own test, not a wait in the queue.
const BISECT_GATE_WAIT_MS = 10 * 60_000;

export interface HeadEntry extends OwnEntry {
  entry: QueueRecord;
}

/** A failure of one test: the member a refusal would name, and what to tell it. */
export type Failure =
  | { kind: 'check'; error: CheckFailed; tested: string; base: string }
  | { kind: 'conflict'; error: Conflict; entry: QueueEntry; tested: string; base: string };

export type LeadOutcome =
  | { kind: 'landed'; landed: Landed }
  /** Take the turn again: the batches ahead changed, main moved, or (`alone`) only a test on main itself will do. */
  | { kind: 'again'; alone?: boolean; mainMoved?: boolean };

interface Tested {
  stack: BatchStack;
  checks: CheckRun[];
}

/** One batch head's turn: form, announce, test, settle, push. */
export async function leadBatch(
  ctx: LandContext,
  q: HeadEntry,
  turn: { snap: Snapshot; ahead: Group[]; members: QueueEntry[] },
  o: { alone: boolean; failures: Map<string, Failure> },
): Promise<LeadOutcome> {
  const { repo, target, keeper, item, input } = ctx;
  const mainTip = await target.mainTip();
  const config = await ctx.landConfig(mainTip);
  const caller = input.lane ? { lane: input.lane } : {};
  const jail = config.checks.length ? await chooseCheckSandbox(config.sandbox, repo, caller) : undefined;
  // Without a sandbox only main and this entry may be tested: the others are other sessions' code.
  const alone = o.alone || !!jail?.aloneOnly;
  if (alone && turn.ahead.length) return { kind: 'again', alone: true };
  const me = turn.snap.queue.get(q.qref);
  if (!me) throw entryGone(item, q.qref);
  const candidates = alone ? [] : turn.members;
  const others = [...turn.ahead.flatMap((g) => [g.head, ...g.members]), ...candidates];
  if (others.length && !(await fetchHeads(repo, target, others))) return { kind: 'again', alone: true };
  const env = repo.deps.env;

  const label = `land ${item}: ${config.checks.join(' && ') || 'no checks'}`;
  const test = async (members: readonly QueueEntry[], base: string): Promise<{ outcome: Outcome<Failure>; tested?: Tested }> =>
    withWorktree(repo, base, async (wt) => {
      const st = await stackBatch(wt, { env, base, members });
      if (st.kind === 'conflict') {
        return { outcome: { ok: false, ran: false, failure: { kind: 'conflict', error: st.error, entry: st.entry, tested: base, base } } };
      }
      const known = o.failures.get(st.stack.tree);
      if (known) return { outcome: { ok: false, ran: false, failure: known } };
      const checks = await checksOn(ctx, wt, { stack: st.stack, jail, config });
      if (checks instanceof CheckFailed) {
        const failure: Failure = { kind: 'check', error: checks, tested: st.stack.tip, base };
        o.failures.set(st.stack.tree, failure);
        return { outcome: { ok: false, ran: true, failure } };
      }
      return { outcome: { ok: true, ran: true, landing: st.stack.landing }, tested: { stack: st.stack, checks } };
    });

  // Form the batch on the predicted base: the batches ahead as they will land, then this entry
  // and each free entry that integrates on it.
  const formed = await withWorktree(repo, mainTip, async (wt) => {
    let base = mainTip;
    for (const g of turn.ahead) {
      const st = await stackBatch(wt, { env, base, members: [g.head, ...g.members] });
      if (st.kind === 'conflict') return undefined; // its head refuses or drops one: wait to see how
      base = st.stack.landing;
    }
    const own = await stackBatch(wt, { env, base, members: [me] });
    if (own.kind === 'conflict') return turn.ahead.length ? undefined : own.error;
    // A free entry that does not integrate on the ones before it is left for a later batch.
    const chosen: QueueEntry[] = [];
    let tip = own.stack.tip;
    let current = tip;
    for (const c of candidates) {
      try {
        tip = current = await integrate(wt, { ...entryIntegration(c, tip), env, current });
        chosen.push(c);
      } catch (e) {
        if (!(e instanceof Conflict)) throw e;
        current = '';
      }
    }
    return { base, chosen };
  });
  if (formed === undefined) return { kind: 'again', alone: true };
  if (formed instanceof Conflict) throw formed;
  const { base, chosen } = formed;
  await announce(ctx, q, chosen);
  const batch = [me, ...chosen];
  const tested = new Map<string, Tested>();
  const io = {
    async test(members: readonly QueueEntry[], b: string) {
      if (keeper.interrupted) throw interrupted(item);
      const until = Math.max(ctx.deadline, repo.deps.clock.now() + BISECT_GATE_WAIT_MS);
      const r = config.checks.length ? await ctx.gate(label, until, () => test(members, b)) : await test(members, b);
      if (r.tested) tested.set(r.tested.stack.landing, r.tested);
      return r.outcome;
    },
  };
  const first = await io.test(batch, base);
  if (base !== mainTip && !(await awaitBase(ctx, q, base, turn.ahead))) return { kind: 'again' };
  const settled = first.ok
    ? { pieces: [{ members: batch, base, landing: first.landing }], refused: [], top: first.landing, rounds: 1 }
    : await settleBatch(io, batch, base, first);
  if (keeper.stoppedBy) throw keeper.stoppedBy;
  if (keeper.interrupted) throw interrupted(item);
  const pushed = await pushSettled(ctx, q, settled, base);
  if (pushed !== 'ok') return { kind: 'again', ...(pushed === 'main-moved' && turn.ahead.length === 0 ? { mainMoved: true } : {}) };
  q.left = true;
  const mine = settled.refused.find((r) => r.member.ref === q.qref);
  if (mine) throw mine.failure.error;
  const piece = settled.pieces.find((p) => p.members.some((m) => m.ref === q.qref))!;
  const run = tested.get(piece.landing);
  const landedCount = settled.pieces.reduce((n, p) => n + p.members.length, 0);
  return {
    kind: 'landed',
    landed: {
      tip: piece.landing,
      previousTip: piece.base,
      attempts: 1,
      checks: run?.checks ?? [],
      ...(jail ? { checksSandbox: jail.sandbox, ...(jail.warning ? { warning: jail.warning } : {}) } : {}),
      enqueuedAt: q.enqueuedAt,
      batch: {
        by: item,
        size: landedCount,
        rounds: settled.rounds,
        ...(settled.refused.length ? { refused: settled.refused.map((r) => r.member.item) } : {}),
      },
    },
  };
}

/** Runs the checks on a stack: its runs, or the CheckFailed they ended in. */
async function checksOn(
  ctx: LandContext,
  wt: Parameters<Parameters<typeof withWorktree>[2]>[0],
  o: { stack: BatchStack; jail: CheckSandboxChoice | undefined; config: Awaited<ReturnType<LandContext['landConfig']>> },
): Promise<CheckRun[] | CheckFailed> {
  if (!o.jail) return [];
  const vars = { item: ctx.item, tip: o.stack.tip, base: o.stack.base };
  const watch = ctx.input.checkWatch ? { watch: ctx.input.checkWatch } : {};
  try {
    return await runJailedChecks(ctx.repo, wt, { config: o.config, sandbox: o.jail.sandbox, vars, signal: ctx.keeper.signal, ...watch });
  } catch (e) {
    if (e instanceof CheckFailed && !ctx.keeper.signal.aborted) return e;
    throw e;
  }
}

/** Names the members in this entry (one fenced push under the claim), unless it already does. */
async function announce(ctx: LandContext, q: HeadEntry, chosen: readonly QueueEntry[]): Promise<void> {
  const members = chosen.map((c) => ({ ref: c.ref, tip: c.tip }));
  const now = q.entry.batch?.members;
  if (now && now.length === members.length && now.every((m, k) => m.ref === members[k]!.ref && m.tip === members[k]!.tip)) return;
  const entry: QueueRecord = { ...q.entry, batch: { members } };
  const r = await ctx.keeper.push(
    (claim) => ({
      claim,
      message: `renew ${claim.item}: test it with ${members.length} more in one batch`,
      records: [
        { ref: q.qref, lease: q.myEntryTip, content: encodeQueue(entry), message: `batch ${entry.item} with ${members.length} more` },
      ],
    }),
    { via: ctx.repo },
  );
  if (!r.ok) throw entryGone(ctx.item, q.qref);
  q.myEntryTip = r.written.get(q.qref)!;
  q.entry = entry;
}

/** Waits until main is `base` (the batches ahead landed as predicted); false when they did not. */
async function awaitBase(ctx: LandContext, q: HeadEntry, base: string, ahead: readonly Group[]): Promise<boolean> {
  const { repo, target, keeper, item } = ctx;
  // A read can catch a landing's atomic push half-applied (refs are advertised one by one): a
  // verdict that costs a re-test is acted on only when the next read says it again.
  let suspect = false;
  for (;;) {
    if (keeper.interrupted) throw interrupted(item);
    if (keeper.stoppedBy) throw keeper.stoppedBy;
    const snap = await target.read(repo);
    const mine = snap.queue.get(q.qref);
    if (!mine || mine.tip !== q.myEntryTip) throw entryGone(item, q.qref);
    if ((await target.mainTip()) === base) return true;
    // Still on course while every batch ahead not yet landed is queued as predicted; one that
    // settled otherwise (its members changed, or main moved elsewhere) means test again.
    const pending = ahead.filter((g) => snap.queue.has(g.head.ref));
    const onCourse =
      pending.length > 0 &&
      pending.every((g) => snap.queue.get(g.head.ref)!.tip === g.head.tip && g.members.every((m) => snap.queue.get(m.ref)?.tip === m.tip));
    if (!onCourse && suspect) return false;
    suspect = !onCourse;
    await repo.deps.clock.sleep(PARENT_POLL_MS, keeper.signal);
  }
}

/**
 * The push that settles the batch. 'ok'; 'main-moved' when main is no longer the base; 'changed'
 * when a member's entry or claim is not what was tested (the batch is formed again).
 */
async function pushSettled(
  ctx: LandContext,
  q: HeadEntry,
  s: Settled<QueueEntry, Failure>,
  base: string,
): Promise<'ok' | 'main-moved' | 'changed'> {
  const { repo, target, keeper, item, input } = ctx;
  const { clock } = repo.deps;
  const landedRefs = new Set(s.pieces.flatMap((p) => p.members.map((m) => m.ref)));
  const pieceOf = (ref: string) => s.pieces.find((p) => p.members.some((m) => m.ref === ref))!;
  const size = landedRefs.size;
  const meLanded = landedRefs.has(q.qref);
  for (let tries = 1; ; tries++) {
    const snap = await target.read(repo);
    if ((await target.mainTip()) !== base) return 'main-moved';
    const records: RecordWrite[] = [];
    const extra: RefUpdate[] = [];
    for (const m of s.pieces.flatMap((p) => p.members)) {
      if (m.ref === q.qref) continue;
      const now = snap.queue.get(m.ref);
      const cref = claimRef(classifyRef(m.ref)!.item!);
      const claim = snap.claims.get(cref);
      if (!now || now.tip !== m.tip || !claim || claim.claim.state !== 'held' || !sameSession(claim.claim.holder, m.entry.holder))
        return 'changed';
      const landed = { main: target.main, tip: pieceOf(m.ref).landing, batch: { by: item, size } };
      const next = { ...claim.claim, gen: claim.claim.gen + 1, at: clock.now(), state: 'done' as const, landed };
      records.push({ ref: cref, lease: claim.tip, content: encodeClaim(next), message: `land ${m.item} in ${item}'s batch` });
      records.push({ ref: m.ref, lease: m.tip, content: null, message: `dequeue ${m.item}: landed in ${item}'s batch` });
      extra.push({ ref: `refs/heads/${m.entry.branch}`, newOid: null, lease: m.entry.head });
    }
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
    records.push({ ref: q.qref, lease: q.myEntryTip, content: null, message: `dequeue ${q.entry.item}: batch settled` });
    if (meLanded) records.push(...(input.alsoWrite?.(pieceOf(q.qref).landing) ?? []));
    if (s.pieces.length) extra.push({ ref: `refs/heads/${target.main}`, newOid: s.top, lease: base });
    if (meLanded && !input.keep) extra.push({ ref: `refs/heads/${target.branch}`, newOid: null, lease: target.head });
    const r = await keeper.push(
      (claim) => ({
        claim:
          meLanded && !input.keep
            ? { ...claim, state: 'done', landed: { main: target.main, tip: pieceOf(q.qref).landing, batch: { by: item, size } } }
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
