// `abcd land`: one beginning every forge shares (deadline, network limit, target, holder check,
// config check, claim keeper, result shape), then the forge's strategy: strategy-git.ts (the
// queue as records, a fenced push of main) or strategy-github.ts (a pull request, GitHub's
// merge queue).
import { shortItem } from '../records/item.js';
import { claimRef } from '../records/refs.js';
import { parseDuration } from '../core/duration.js';
import { requireMineOnBranch } from '../claims/holding.js';
import type { Repo } from '../repo/repo.js';
import { landConfigReader } from './checks.js';
import { ClaimKeeper } from './claim-keeper.js';
import { readWithMain, refuseNothingToLand, resolveLandTarget } from './target.js';
import type { GateRunner, LandContext, LandInput, LandResult, LandStrategy } from './types.js';

export type { GateRunner, LandInput, LandResult } from './types.js';

/** Lands the item's work branch on main, fenced by its claim; how depends on the forge. */
export async function land(repo: Repo, input: LandInput, gate: GateRunner): Promise<LandResult> {
  if (repo.forge.kind === 'github') {
    const { githubStrategy } = await import('./strategy-github.js');
    githubStrategy.precheck?.(repo);
    return landWith(Promise.resolve(githubStrategy), repo, input, gate);
  }
  // The git strategy has no precheck: its module loads while the beginning's git processes run.
  const loading = import('./strategy-git.js').then((m): LandStrategy<unknown> => {
    if (m.gitStrategy.precheck) throw new Error('a precheck must run before the first read: load the strategy first');
    return m.gitStrategy as LandStrategy<unknown>;
  });
  loading.catch(() => undefined);
  return landWith(loading, repo, input, gate);
}

async function landWith<E>(loading: Promise<LandStrategy<E>>, repo: Repo, input: LandInput, gate: GateRunner): Promise<LandResult> {
  const { clock } = repo.deps;
  const started = clock.now();
  const deadline = started + input.waitMs;
  // Without a wait there is no deadline to shorten git's timeouts toward: give them full time.
  if (input.waitMs > 0) repo.limitNetworkTo(deadline, started);
  const item = shortItem(input.item);
  const ref = claimRef(input.item);
  const target = await resolveLandTarget(repo, item, input.branch);
  const snap = await readWithMain(repo, target);
  // Read while the holder and the work are checked (a local read); its refusal comes after theirs.
  const landConfig = landConfigReader(repo.git, (t) => parseDuration(t, 'land.timeout'));
  const configRead = target.mainTip().then(landConfig);
  configRead.catch(() => undefined);
  const held = await requireMineOnBranch(repo, snap, { ref, item, branch: target.branch });
  await refuseNothingToLand(repo, target, item);
  // A config the schema refuses (a typo) refuses the land here, before anything is written.
  const config = await configRead;
  const keeper = new ClaimKeeper(repo, ref, item, held.tip, held.claim);
  const ctx: LandContext = { repo, input, gate, item, ref, started, deadline, target, snap, held, config, landConfig, keeper };
  const strategy = await loading;
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
  if (!input.keep) await repo.held.forget(ref);
  return {
    item,
    main: target.main,
    head: target.head,
    branch: target.branch,
    ...landed,
    waitedMs: clock.now() - started,
    claim: input.keep ? 'held' : 'done',
  };
}
