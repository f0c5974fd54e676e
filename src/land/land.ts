// `abcd land`: one beginning every forge shares (deadline, network limit, target, holder check,
// config check, claim keeper, result shape), then the strategy the forge lands by:
// strategy-git.ts (the queue as records, a fenced push of main) or strategy-pull-request.ts (a
// pull request the forge merges: GitHub's merge queue).
import { shortItem } from '../records/item.js';
import { claimRef } from '../records/refs.js';
import { parseDuration } from '../core/duration.js';
import { requireMineOnBranch } from '../claims/holding.js';
import { withoutNetworkDeadline, type Repo } from '../repo/repo.js';
import { landWaiting } from './early-read.js';
import { landConfigReader, passedOnRetry, type LandConfig } from './checks/checks.js';
import type { IntegrationStrategy } from '../records/queue.js';
import { ClaimKeeper } from '../claims/claim-keeper.js';
import { explainEndedClaim } from './landed-proof.js';
import { pruneDeadCycleFolders } from '../machine/owned-folders.js';
import { refuseKnownSecrets } from './checks/secret-guard.js';
import { readWithMain, refuseNothingToLand, resolveLandTarget } from './target.js';
import type { GateRunner, LandContext, LandInput, LandResult, LandStrategy } from './types.js';
import type { ForgeLanding } from '../forges/forge.js';

export type { GateRunner, LandInput, LandResult } from './types.js';

/** Lands the item's work branch on main, fenced by its claim; how depends on the forge. */
export async function land(repo: Repo, input: LandInput, gate: GateRunner): Promise<LandResult> {
  const strategy = await strategyFor(repo.forge.landing);
  // A precheck refuses before anything is read (a GitHub land without the App's settings).
  strategy.precheck?.(repo);
  return landWith(strategy, repo, input, gate);
}

/** The strategy for the way the forge lands; a new way fails the build here until it has one. */
async function strategyFor(landing: ForgeLanding): Promise<LandStrategy<unknown>> {
  switch (landing.through) {
    case 'records-queue':
      return (await import('./strategies/strategy-git.js')).gitStrategy as LandStrategy<unknown>;
    case 'pull-request':
      return (await import('./strategies/strategy-pull-request.js')).pullRequestStrategy(landing.pullRequests) as LandStrategy<unknown>;
    default:
      return unhandled(landing);
  }
}

function unhandled(landing: never): never {
  throw new Error(`no land strategy for ${JSON.stringify(landing)}`);
}

/**
 * How this land brings the work onto main: `--strategy` always wins, then `land.strategy` on
 * main, then the caller's default (lanes squash), else rebase (ADR 0093).
 */
export function integrationStrategyOf(input: LandInput, config: LandConfig): IntegrationStrategy {
  return input.strategy ?? config.strategy ?? input.defaultStrategy ?? 'rebase';
}

async function landWith<E>(strategy: LandStrategy<E>, given: Repo, input: LandInput, gate: GateRunner): Promise<LandResult> {
  const { clock } = given.deps;
  const started = input.startedAt ?? clock.now();
  const deadline = started + input.waitMs;
  // The land's own two network budgets, new values whatever lane shares `given`: waits end by
  // --wait; a test and the landing push get git's full timeout.
  const repo = withoutNetworkDeadline(given);
  const waiting = landWaiting(repo, input.waitMs, started);
  const item = shortItem(input.item);
  const ref = claimRef(input.item);
  // The cycle folders of lanes killed with -9 on this computer go meanwhile (never fails).
  const sweeping = pruneDeadCycleFolders(repo.deps.config.tmpDir);
  const target = await resolveLandTarget(repo, item, input.branch);
  const snap = await readWithMain(waiting, target);
  // Read while the holder and the work are checked (a local read); its refusal comes after theirs.
  const landConfig = landConfigReader(repo.git, (t) => parseDuration(t, 'land.timeout'));
  const configRead = target.mainTip().then(landConfig);
  configRead.catch(() => undefined); // awaited below, which throws its error; until then it is not unhandled
  const held = await requireMineOnBranch(waiting, snap, { ref, item, branch: target.branch }).catch(async (e: unknown) =>
    explainEndedClaim(repo.git, { mainTip: await target.mainTip(), item: input.item, short: item }, e),
  );
  await refuseNothingToLand(repo, target, item);
  await refuseKnownSecrets(repo.git, { item, base: await target.mainTip(), head: target.head });
  // A config the schema refuses (a typo) refuses the land here, before anything is written.
  const config = await configRead;
  const keeper = new ClaimKeeper(repo, ref, item, held.tip, held.claim, { waiting, until: deadline });
  const settled = { ...input, strategy: integrationStrategyOf(input, config) };
  const ctx: LandContext = {
    repo,
    waiting,
    input: settled,
    gate,
    item,
    ref,
    started,
    deadline,
    target,
    snap,
    held,
    config,
    landConfig,
    keeper,
  };
  const landed = await enterAndLand(strategy, ctx);
  if (!input.keep) await repo.held.forget(ref);
  await sweeping;
  const flaky = passedOnRetry(landed.checks);
  return {
    item,
    main: target.main,
    head: target.head,
    branch: target.branch,
    ...landed,
    ...(flaky.length ? { flaky } : {}),
    waitedMs: clock.now() - started,
    claim: input.keep ? 'held' : 'done',
  };
}

/** The strategy's own part: it enters (enqueues), the keeper renews the claim, and it lands or undoes its entering. */
async function enterAndLand<E>(strategy: LandStrategy<E>, ctx: LandContext) {
  const { keeper } = ctx;
  const entered = await strategy.enter(ctx);
  keeper.start();
  let landed;
  try {
    landed = await strategy.land(ctx, entered);
  } catch (e) {
    await strategy.undo?.(ctx, entered, e);
    throw e;
  } finally {
    await keeper.stop();
  }
  return landed;
}
