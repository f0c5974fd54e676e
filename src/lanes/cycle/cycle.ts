// One lane cycle: a fresh worktree at main's tip, the agent headless in its sandbox with
// the claim renewed meanwhile, its work taken as objects, then landed through the land
// queue fenced by the claim, or the claim released saying why. Cleanup on every path.
import { mkdir, writeFile } from 'node:fs/promises';
import { makeCycleFolder, removeTree } from '../../machine/owned-folders.js';
import { join } from 'node:path';
import { budgetAdmitsRequest, debitBudget } from '../../machine/budget/budget.js';
import { emptyUsage, recordedUsage, usageSince, type CycleUsage } from '../../machine/budget/usage.js';
import type { ItemDoc } from '../../items/source.js';
import { itemFileForAgent } from '../../items/agent-text.js';
import { formatItem, shortItem } from '../../records/item.js';
import type { CycleRecord } from '../../records/lane-result.js';
import { AgentObjectsRefused, ChangeTooLarge } from '../../core/refusals.js';
import { sanitizeLine } from '../../core/sanitize.js';
import { scrubSecrets } from '../../core/scrub.js';
import { ClaimKeeper } from '../../claims/claim-keeper.js';
import type { LandResult } from '../../land/types.js';
import type { Repo } from '../../repo/repo.js';
import { buildAgentEnv } from '../run/agent-env.js';
import { collectAgentWork, prepareAgentRepo } from '../run/agent-repo.js';
import { changeLimits } from '../guards/change-limits.js';
import { openCycleLog, type CycleLog } from './cycle-log.js';
import { endMark, markedSession } from '../logs/log-marks.js';
import { watchCycle, type CycleWatch } from './cycle-watch.js';
import { agentTail } from '../logs/output-tail.js';
import { fillLaneStore } from '../../repo/lane-objects.js';
import { releaseClaim, type ClaimReview, type Taken } from './claim.js';
import type { RunContext } from './context.js';
import { runSteeredAgent } from './steer-cycle.js';
import { cyclePlan, laneHidden } from '../run/sandbox.js';
import { mailboxLine } from '../../steering/mailbox.js';
import { cycleBranch } from './keep-work.js';
import type { SandboxNetwork } from '../../machine/sandbox/sandbox-network.js';
import { openCycleNetwork } from './cycle-network.js';
import { landCycle } from './cycle-landing.js';
import { teamCycle } from '../team-budget/cycle.js';
import { landedPullRequest } from '../../forges/landed.js';

export async function runCycle(ctx: RunContext, laneOfRun: Repo, item: ItemDoc, taken: Taken, n: number): Promise<CycleRecord> {
  const { clock } = ctx.repo.deps;
  // The cycle's own stop signal, following the run's: the keepers listen on it, and it is
  // dropped with the cycle (listeners on the run's signal would pile up over a long drain).
  const scope = new AbortController();
  const follow = () => scope.abort();
  if (ctx.signal?.aborted) follow();
  else ctx.signal?.addEventListener('abort', follow, { once: true });
  const lane: Repo = { ...laneOfRun, deps: { ...laneOfRun.deps, signal: scope.signal } };
  const startedAt = clock.now();
  const short = shortItem(item.key);
  // main as the check that chose the item read it: the item's text is from that commit too.
  const runHead = await ctx.main.tipIn(taken.seen);
  const branch = cycleBranch(item.key, ctx.runId, n);
  const base = { item: short, startedAt, runHead, ...(taken.answered ? { followUp: true } : {}) };
  const hold: CycleHold = { landing: false, closeSession: () => Promise.resolve() };
  const ended = (r: Partial<CycleRecord> & Pick<CycleRecord, 'outcome'>): CycleRecord => ({
    ...base,
    ...r,
    // The reason goes to the remote's record: bounded, and nothing in it that looks like a token.
    ...(r.reason ? { reason: sanitizeLine(scrubSecrets(r.reason), 480) } : {}),
    // Where the agent and its checks connected, when a sandbox's proxy stood between them and the network.
    ...(hold.net && hold.watch ? { network: hold.watch.networkCounts() } : {}),
    durationMs: clock.now() - startedAt,
  });
  const end = (r: Partial<CycleRecord> & Pick<CycleRecord, 'outcome'>): CycleRecord => {
    const record = ended(r);
    hold.log?.mark(endMark(record));
    return record;
  };
  const keeper = new ClaimKeeper(lane, taken.ref, short, taken.tip, taken.claim);
  keeper.start();
  // Named after this process: what a drain killed with -9 leaves, the next lane or land removes.
  const cycleDir = await makeCycleFolder(ctx.repo.deps.config.tmpDir);
  const team = teamCycle(lane, { runtime: ctx.runtime.name, item: short, ttlMs: ctx.agentTimeoutMs });
  const c: Cycle = { ctx, lane, item, taken, n, short, runHead, branch, startedAt, keeper, cycleDir, team, hold, end };
  try {
    const prepared = await prepareCycle(c);
    const agent = await runAgentTurn(c, prepared);
    return agentStopped(c, agent) ?? (await landWork(c, prepared, agent));
  } finally {
    await endCycle(c);
    ctx.signal?.removeEventListener('abort', follow);
  }
}

/** One cycle's fixed parts, from its start to its end. */
interface Cycle {
  ctx: RunContext;
  lane: Repo;
  item: ItemDoc;
  taken: Taken;
  n: number;
  short: string;
  runHead: string;
  branch: string;
  startedAt: number;
  keeper: ClaimKeeper;
  cycleDir: string;
  team: ReturnType<typeof teamCycle>;
  hold: CycleHold;
  end: (r: Partial<CycleRecord> & Pick<CycleRecord, 'outcome'>) => CycleRecord;
}

/** What the cycle opened as it went, for its end to close, and what its end tells the claim. */
interface CycleHold {
  landing: boolean;
  // Set when the work touched protected paths: the released claim names it for the person.
  review?: ClaimReview;
  log?: CycleLog;
  closeSession: () => Promise<void>;
  watch?: CycleWatch;
  net?: SandboxNetwork;
}

type Prepared = Awaited<ReturnType<typeof prepareCycle>>;
type AgentTurn = Awaited<ReturnType<typeof runAgentTurn>>;

/** The log, the item as its source has it now, the agent's repository, its environment and its network. */
async function prepareCycle(c: Cycle) {
  const { ctx, hold, taken, runHead, branch, startedAt, short, cycleDir, n } = c;
  const { clock } = ctx.repo.deps;
  const key = formatItem(c.item.key);
  const log = (hold.log = await openCycleLog({ commonDir: ctx.repo.commonDir, runId: ctx.runId, n, item: short }));
  const watch = (hold.watch = watchCycle(ctx, short, log));
  // The item as its source has it now, with what a listing leaves out (an issue's comments).
  const item = (await ctx.source.read(c.item.key, runHead, c.item)) ?? c.item;
  // The agent's repository borrows from the lane store, which holds only what main reaches.
  const [files, storeObjects, config] = await Promise.all([
    stageCycle(cycleDir, item, taken),
    fillLaneStore({ env: ctx.repo.deps.env, commonDir: ctx.repo.commonDir, runHead }),
    ctx.configAt(runHead),
  ]);
  const who = { name: `${ctx.repo.author.name} (abcd lane)`, email: ctx.repo.author.email };
  const wt = await prepareAgentRepo({
    env: ctx.repo.deps.env,
    objectsDir: storeObjects,
    cycleDir,
    branch,
    runHead,
    who,
  });
  const env = buildAgentEnv(ctx.repo.deps.env, ctx.envNames, {
    item: key,
    itemFile: files.item,
    worktree: wt,
    runId: ctx.runId,
    runHead,
    startedAt,
    mailbox: files.mailbox,
    usage: files.usage,
    home: files.home,
    tmp: files.tmp,
  });
  // The agent's only way out of its sandbox's loopback: the egress proxy, with this cycle's allow-list.
  const net = (hold.net = await openCycleNetwork(ctx, { cycleDir, config, env, watch, log }));
  const collect = (base = runHead) =>
    collectAgentWork({
      lane: ctx.repo.git,
      env: ctx.repo.deps.env,
      laneGitDir: ctx.repo.gitDir,
      storeObjects,
      cycleDir,
      runHead: base,
      item: short,
      who: ctx.repo.author,
      atMs: clock.now(),
      limits: changeLimits(config.lanes),
    });
  return { log, watch, item, files, storeObjects, config, who, wt, env, net, collect };
}

/** The agent's first turn: the team pool's reservation, the session opened and steered, what it used debited. */
async function runAgentTurn(c: Cycle, p: Prepared) {
  const { ctx, lane, hold, taken, runHead, short, cycleDir, keeper, team } = c;
  const { clock } = ctx.repo.deps;
  const { log, watch, item, files, storeObjects, config, wt, env, net, collect } = p;
  // What the budget was debited for so far this cycle (the model gateway admits against the rest).
  let debited: CycleUsage = emptyUsage();
  // Reserved from the team pool just before the agent starts: past it, no cycle starts anywhere.
  await team.reserve(config.lanes, taken.seen);
  const opened = await ctx.runtime.open({
    env,
    sandbox: ctx.sandbox,
    plan: cyclePlan({
      cycleDir,
      objectsDir: storeObjects,
      hide: laneHidden(ctx),
      program: ctx.program,
      ...(net ? { network: net } : {}),
    }),
    ...(net ? { network: net } : {}),
    marker: `ABCD_WORKTREE=${wt}`,
    cycleDir,
    mailbox: files.mailbox,
    usageFile: files.usage,
    promptFile: files.prompt,
    now: () => clock.now(),
    onOutput: (chunk: string) => watch?.agentOutput(chunk),
    onActivity: (a) => watch?.activity(a),
    // The gateway's check before each model request: the pool less what this cycle used and
    // was not yet debited for. The first turn is debited after it ends, later ones after theirs.
    // Then the team pool's, which answers at once while the cycle spends what it holds there.
    admitModel: (soFar) => {
      const own = budgetAdmitsRequest(ctx.budgetDir, usageSince(soFar, debited));
      return own.ok ? team.admit(soFar) : own;
    },
  });
  const session = markedSession(opened, (m) => log?.mark(m), ctx.runtime.name);
  hold.closeSession = () => session.close();
  const { run, watcher, collected } = await runSteeredAgent(ctx, lane, {
    session,
    item,
    taken,
    ...(taken.answered ? { followUp: mailboxLine(taken.answered).trim() } : {}),
    runHead,
    timeoutMs: ctx.agentTimeoutMs,
    signal: keeper.signal,
    collect,
  });
  // The session stays open: a conflict or a failing check may give it more turns.
  const spent = await session.usage();
  await debitBudget(ctx.budgetDir, { usage: spent, runtime: ctx.runtime.name, item: short });
  debited = spent;
  await team.settle(spent);
  const recorded = recordedUsage(spent);
  watch.used(recorded.usage ?? 0, spent.costUsd);
  const agent = { agentMs: run.durationMs, exitCode: run.exitCode, ...recorded, ...agentTail(run.outputTail) };
  // Scrubbed whole before it is cut to lines, so a key block loses its body with its header.
  const tail = scrubSecrets(run.outputTail).trim().split('\n').slice(-3).join(' | ');
  return { session, run, watcher, collected, spent, agent, tail };
}

/** The cycle's end when the agent's turn ended it: fenced, stopped by the budget or the person, timed out or failed. */
function agentStopped(c: Cycle, a: AgentTurn): CycleRecord | undefined {
  const { ctx, keeper, end } = c;
  const { session, run, agent, tail } = a;
  if (keeper.fenced) return end({ outcome: 'failed', code: 'fenced', reason: keeper.fenced.message, ...agent });
  const cut = session.budgetStop?.();
  if (cut)
    return end({
      outcome: 'failed',
      code: 'budget-exhausted',
      reason: `the model gateway stopped the agent's next request: ${cut}`,
      ...agent,
    });
  if (run.stopped) return end({ outcome: 'cancelled', reason: 'the lane was stopped (SIGINT/SIGTERM) while the agent ran', ...agent });
  if (run.timedOut)
    return end({
      outcome: 'timeout',
      reason: `${run.modelUnanswered ? `${run.modelUnanswered}; ` : ''}the agent ran past its timeout of ${Math.round(ctx.agentTimeoutMs / 1000)}s and was killed with everything it started`,
      ...agent,
    });
  if (run.exitCode !== 0)
    return end({
      outcome: 'failed',
      code: 'agent-failed',
      reason: `${run.modelUnanswered ? `${run.modelUnanswered}; ` : ''}the agent exited ${run.exitCode}${tail ? `: ${tail}` : ''}`,
      ...agent,
    });
  return undefined;
}

/** The agent's work taken and landed, its source told, and the later turns debited. */
async function landWork(c: Cycle, p: Prepared, a: AgentTurn): Promise<CycleRecord> {
  const { ctx, lane, hold, taken, branch, keeper, runHead, cycleDir, short, team, end } = c;
  const { item, who, config, collect, watch } = p;
  const { session, watcher, collected, spent, agent } = a;
  const took =
    collected ??
    (await collect().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    ));
  if (!took.ok) {
    // What the agent left is refused as a whole, never landed in part or by a fallback.
    if (took.error instanceof AgentObjectsRefused || took.error instanceof ChangeTooLarge)
      return end({ outcome: 'failed', code: took.error.code, reason: took.error.message, ...agent });
    throw took.error;
  }
  const work = took.value;
  if (!work.head)
    return end({
      outcome: 'no-change',
      reason: `the agent exited 0 and changed nothing${work.ignored ? ` (${work.ignored})` : ''}`,
      ...agent,
    });
  hold.landing = true;
  const landed = await landCycle(ctx, lane, {
    item,
    taken,
    branch,
    keeper,
    work: work.head,
    runHead,
    watcher,
    session,
    cycleDir,
    who,
    config,
    collect,
    watch,
  });
  const { turnMs, result, reviewBase, ...record } = landed;
  if (record.outcome === 'needs-review' && record.kept && record.review && reviewBase)
    hold.review = { run: ctx.runId, branch: record.kept.branch, head: record.kept.head, base: reviewBase, paths: record.review.paths };
  await hold.closeSession();
  // Landed: its source marks it done (an issue is closed with a comment naming the commit).
  const marked = result ? await ctx.source.markDone(item.key, doneNote(result, ctx.runId)) : {};
  // The turns after the first are debited as the first was: what the session used since.
  const total = turnMs ? await session.usage() : spent;
  if (turnMs) {
    await debitBudget(ctx.budgetDir, { usage: usageSince(total, spent), runtime: ctx.runtime.name, item: short });
    await team.charge(usageSince(total, spent));
  }
  return end({
    ...agent,
    ...record,
    ...(marked.warning ? { reason: marked.warning } : {}),
    agentMs: agent.agentMs + turnMs,
    ...recordedUsage(total),
  });
}

/** Cleanup on every path; the claim released saying why, unless the land left it done. */
async function endCycle(c: Cycle): Promise<void> {
  const { ctx, lane, item, taken, branch, keeper, cycleDir, team, hold } = c;
  const { landing, review, net, watch, log } = hold;
  await hold.closeSession();
  await net?.close();
  await team.abandon();
  await keeper.stop();
  watch?.end();
  await log?.close();
  await Promise.all([removeTree(cycleDir), ctx.repo.git.refs.delete(`refs/heads/${branch}`)]);
  // Once the work was pushed to keep it, its branch stays: nothing a later failure does removes it.
  if (!landing || !(await landedDone(lane, taken.ref)))
    await releaseClaim(
      lane,
      item.key,
      review
        ? `its work changes protected paths and waits for the person on ${review.branch}`
        : landing
          ? 'the cycle did not land; its work stays on its branch'
          : 'the cycle did not land',
      { keepBranch: landing, ...(review ? { review } : {}) },
    );
}

/** What an item's source is told of its landing. */
function doneNote(r: LandResult, runId: string) {
  const pr = landedPullRequest(r);
  return { commit: r.tip, main: r.main, runId, ...(pr ? { pullRequest: { number: pr.number, ...(pr.url ? { url: pr.url } : {}) } } : {}) };
}

/** Whether this lane's land left the claim done (then there is nothing to release). */
async function landedDone(lane: Repo, ref: string): Promise<boolean> {
  return !(await lane.held.has(ref));
}

/** The cycle's files outside the worktree: a copy of the item, the mailbox, the usage file, the prompt, an empty HOME. */
async function stageCycle(cycleDir: string, item: ItemDoc, taken: Taken) {
  const files = {
    item: join(cycleDir, 'item.md'),
    mailbox: join(cycleDir, 'mailbox'),
    usage: join(cycleDir, 'usage'),
    prompt: join(cycleDir, 'prompt'),
    home: join(cycleDir, 'home'),
    tmp: join(cycleDir, 'tmp'),
  };
  await Promise.all([mkdir(files.home), mkdir(files.tmp)]);
  await writeFile(files.item, itemFileForAgent(item));
  await writeFile(files.mailbox, taken.answered ? mailboxLine(taken.answered) : '');
  await writeFile(files.usage, '');
  await writeFile(files.prompt, '');
  return files;
}
