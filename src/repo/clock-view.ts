// How far this computer's clock can be trusted against the records' writers.
import { join } from 'node:path';
import { SkewLog, type SkewBracket } from './clock-skew.js';
import { formatHolder, sameSession, type Holder } from '../records/holder.js';
import { ClockSkewed } from '../core/refusals.js';
import { formatDuration } from '../core/duration.js';
import type { Repo } from './repo.js';
import type { Snapshot } from './snapshot.js';

// Clocks that disagree with a record writer's by more than this refuse takeovers and pruning.
export const CLOCK_SKEW_LIMIT_MS = 60_000;
// A read's ref advertisement can come this long before the read ends (the network timeout):
// a change seen at the next read may have been written that much before the last read ended.
const READ_SLACK_MS = 30_000;

/** What this clone knows about its clock against the writers' (ADR 0017). */
export interface ClockView {
  /** An upper bound on how far this clock runs ahead of `writer`'s; undefined when unknown. */
  aheadAtMost(writer: Holder): number | undefined;
  /** A writer whose clock this one disagrees with past the limit: no clock-based act then. */
  unsafe?: SkewBracket;
}

/** A view that knows nothing: every clock-based act rests on the reader's own watching. */
export const UNKNOWN_CLOCK: ClockView = { aheadAtMost: () => undefined };

/**
 * Learns from this read what it can about the clock (claims that changed since the clone's
 * last read bracket the offset to their writer), records it, and returns the current view.
 * Call it once per read: the read's tips become the next comparison.
 */
export async function observeClock(repo: Repo, snap: Snapshot): Promise<ClockView> {
  const log = new SkewLog(join(repo.commonDir, 'abcd', 'clock'));
  const prev = await log.readLastRead();
  // A process that read earlier but writes later must not rewind what the others compare with.
  if (!prev || prev.at < snap.readAt) {
    if (prev) await log.record(bracketsOf(repo, snap, prev.at, prev.tips));
    const tips: Record<string, string> = {};
    for (const e of snap.claims.values()) tips[e.ref] = e.tip;
    await log.writeLastRead({ at: snap.readAt, tips });
  }
  return viewOf(await log.brackets(repo.deps.clock.now()));
}

/** The view from brackets already recorded, without learning from a read. */
export async function readClock(repo: Repo): Promise<ClockView> {
  return viewOf(await new SkewLog(join(repo.commonDir, 'abcd', 'clock')).brackets(repo.deps.clock.now()));
}

function bracketsOf(repo: Repo, snap: Snapshot, prevAt: number, prevTips: Record<string, string>): SkewBracket[] {
  const found = new Map<string, SkewBracket>();
  for (const e of snap.claims.values()) {
    // A claim's `at` is its writer's clock at the write; only claims are used (a queue entry
    // keeps its first `at` for fairness). This session's own writes say nothing.
    if (prevTips[e.ref] === e.tip || sameSession(e.claim.holder, repo.me)) continue;
    const writer = formatHolder(e.claim.holder);
    const b = { writer, lo: prevAt - READ_SLACK_MS - e.claim.at, hi: snap.readAt - e.claim.at, seenAt: snap.readAt };
    const old = found.get(writer);
    found.set(writer, old ? { ...b, lo: Math.max(old.lo, b.lo), hi: Math.min(old.hi, b.hi) } : b);
  }
  return [...found.values()];
}

function viewOf(brackets: readonly SkewBracket[]): ClockView {
  const byWriter = new Map(brackets.map((b) => [b.writer, b]));
  // Against a writer never watched, the largest bound over all is the cautious one: a writer
  // with a slow clock makes it larger (a later takeover), one with a fast clock cannot lower it.
  const widest = brackets.length ? Math.max(...brackets.map((b) => b.hi)) : undefined;
  const unsafe = brackets.find((b) => b.lo > CLOCK_SKEW_LIMIT_MS || b.hi < -CLOCK_SKEW_LIMIT_MS);
  return {
    aheadAtMost: (w) => byWriter.get(formatHolder(w))?.hi ?? widest,
    ...(unsafe ? { unsafe } : {}),
  };
}

/** The refusal for a clock-based act (`act`) by a clock that disagrees past the limit. */
export function refuseSkewed(b: SkewBracket, act: string, extra: Record<string, unknown> = {}): ClockSkewed {
  const ahead = b.lo > 0;
  const by = ahead ? b.lo : -b.hi;
  return new ClockSkewed(
    `this computer's clock is at least ${formatDuration(by)} ${ahead ? 'ahead of' : 'behind'} the clock of ${b.writer} ` +
      `(measured from a record it watched change: offset between ${formatDuration(b.lo)} and ${formatDuration(b.hi)}); ` +
      `abcd will not ${act} while clocks disagree by more than ${formatDuration(CLOCK_SKEW_LIMIT_MS)}. ` +
      "Set this computer's clock right (NTP, timedatectl), or ask that session to fix its clock, then run again.",
    { clock: 'system', act, writer: b.writer, skewMs: { min: b.lo, max: b.hi }, limitMs: CLOCK_SKEW_LIMIT_MS, ...extra },
  );
}
