// The landing part of a cycle: the land a lane makes (through the queue, its receipt in the
// landing push, what the run absorbed), wrapped in land-retry.ts so that the work is kept on
// its branch first and a conflict or a failing check goes back to the same agent session.
import type { ItemDoc } from '../../items/source.js';
import { land } from '../../land/land.js';
import type { LandResult } from '../../land/types.js';
import type { ClaimKeeper } from '../../claims/claim-keeper.js';
import type { RepoConfig } from '../../repo/config.js';
import type { Repo } from '../../repo/repo.js';
import type { Signature } from '../../records/objects.js';
import { shortItem } from '../../records/item.js';
import type { AgentWork } from '../run/agent-repo.js';
import type { Taken } from './claim.js';
import { cycleFits, type RunContext } from './context.js';
import { landKeepingWork, type RetryOutcome } from './land-retry.js';
import { DEFAULT_MAX_CYCLES } from '../run/options.js';
import { bringToMain } from './rebase-worktree.js';
import { consumptionOf, receiptWrites } from '../guards/receipts.js';
import { protectedChange } from '../guards/protected-change.js';
import { rememberDelivered } from '../../repo/settings-trust/delivered.js';
import type { AgentSession } from '../runtimes/runtime.js';
import type { SteerWatcher } from '../run/watcher.js';
import type { CycleWatch } from './cycle-watch.js';
import { unlessSystemError } from '../../core/best-effort.js';

// A land inside a cycle waits in the queue at most this long (land's own default).
const LAND_WAIT_MS = 30 * 60_000;
// Turns to fix a failing land check when lanes.fixChecks does not say.
const DEFAULT_FIX_CHECKS = 1;

/** What the landing of a cycle is given. */
export interface CycleLanding {
  item: ItemDoc;
  taken: Taken;
  branch: string;
  keeper: ClaimKeeper;
  work: string;
  runHead: string;
  watcher: SteerWatcher;
  session: AgentSession;
  cycleDir: string;
  who: Signature;
  config: RepoConfig;
  collect: (base: string) => Promise<AgentWork>;
  watch: CycleWatch;
}

export async function landCycle(ctx: RunContext, lane: Repo, o: CycleLanding): Promise<RetryOutcome & { result?: LandResult }> {
  const { clock } = lane.deps;
  let landed: LandResult | undefined;
  const { item, taken, branch, watcher } = o;
  const receipt = (head: string) =>
    receiptWrites({ watcher, item: item.key, runId: ctx.runId, holder: lane.me, gen: taken.claim.gen, at: clock.now(), head });
  const out = await landKeepingWork({
    lane,
    key: item.key,
    item: shortItem(item.key),
    ref: taken.ref,
    branch,
    keeper: o.keeper,
    work: o.work,
    base: o.runHead,
    land: async () => (landed = await landItem(ctx, lane, o, receipt)),
    collect: o.collect,
    rebase: async (r) => {
      const env = ctx.repo.deps.env;
      const repo = { env, lane: ctx.repo.git, laneGitDir: ctx.repo.gitDir, commonDir: ctx.repo.commonDir };
      return (await bringToMain({ ...r, ...repo, cycleDir: o.cycleDir, branch, workHead: r.head, who: o.who })).files;
    },
    turn: (text, kind, signal) => {
      o.watch.agent();
      return o.session.turn(text, { kind, timeoutMs: ctx.agentTimeoutMs, signal });
    },
    protect: (base, head) => protectedChange(ctx.repo.git, { base, head, item: item.key, extra: taken.seen.settings.protectedPaths }),
    fits: () => cycleFits(ctx, clock.now()),
    caps: {
      conflict: Math.max(0, (ctx.maxCycles ?? DEFAULT_MAX_CYCLES) - 1),
      check: o.config.lanes?.fixChecks ?? DEFAULT_FIX_CHECKS,
    },
  });
  return out.outcome === 'landed' && landed ? { ...out, result: landed } : out;
}

/** One land of the cycle's branch through the queue, with its receipt in the landing push and what the run absorbed. */
async function landItem(
  ctx: RunContext,
  lane: Repo,
  o: CycleLanding,
  receipt: (head: string) => ReturnType<typeof receiptWrites>,
): Promise<LandResult> {
  const { clock } = lane.deps;
  const { item, branch, watcher } = o;
  const consumed = consumptionOf(watcher, ctx.runId);
  const note = ctx.source.landingNote(item.key);
  const waitMs = Math.max(1000, Math.min(LAND_WAIT_MS, ctx.deadline - clock.now()));
  o.watch.landing();
  const input = {
    item: item.key,
    branch,
    waitMs,
    // One commit per item on main unless land.strategy says otherwise (ADR 0093).
    defaultStrategy: 'squash' as const,
    ...(item.priority ? { priority: item.priority } : {}),
    keep: false,
    alsoWrite: receipt,
    lane: { attended: ctx.attended },
    checkWatch: o.watch.checks,
  };
  const landed = await land(lane, { ...input, ...(consumed ? { consumed } : {}), ...(note ? { pullRequestNote: note } : {}) }, ctx.gate);
  // The landing deleted these records; the same commits pushed again are never delivered
  // again. A write the disk refuses leaves the landing standing; a bug is thrown on.
  await rememberDelivered(
    lane.commonDir,
    watcher.delivered.flatMap((c) => (c.record ? [c.record.tip] : [])),
  ).catch(unlessSystemError(undefined));
  return landed;
}
