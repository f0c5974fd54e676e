// `abcd build <item>` and `abcd drain`: one run of one or N lanes, with its one result.
import { randomBytes } from '../../core/builtins.js';
import { readRepoConfig, type LanesConfig, type RepoConfig } from '../../repo/config.js';
import { openItemSources, type ItemSources } from '../../items/sources.js';
import type { ItemListing } from '../../items/source.js';
import { budgetDir } from '../../machine/budget/budget.js';
import type { CycleRecord, LaneResultRecord } from '../../records/lane-result.js';
import { formatItem, shortItem, type ItemKey } from '../../records/item.js';
import { claimRef } from '../../records/refs.js';
import { formatHolder, sameSession } from '../../records/holder.js';
import { DeadlineReached, Interrupted, isRefusal, type Refusal } from '../../core/refusals.js';
import type { GateRunner } from '../../land/land.js';
import type { Repo } from '../../repo/repo.js';
import { readSnapshot, type Snapshot } from '../../repo/snapshot.js';
import { standing } from '../../claims/rules.js';
import type { RunContext } from '../cycle/context.js';
import { resolveMain } from '../../claims/main-branch.js';
import { heldKeyOf } from './held-key.js';
import { laneSettings, withKeyPassed, type LaneFlags, type LaneSettings } from './options.js';
import { RunRecorder } from '../logs/recorder.js';
import { requestFollowUp, type PendingOutcome } from '../guards/request.js';
import { runLanes } from './run-loop.js';
import { runtimeSpec } from '../runtimes/index.js';
import { agentProgramView, chooseSandbox, laneHidden, requireAgentProgram } from './sandbox.js';
import { probeBwrap } from '../../machine/sandbox/bwrap.js';
import { keyFileSettings, keyFilesOf } from '../../machine/gateway/key-file.js';
import { secretPlaces } from '../../machine/sandbox/places.js';
import { chooseCheckSandbox } from '../../land/checks/check-sandbox.js';
import { checkModelKeyPassed, gatewayCarriesKey, keyPassedByDefault } from '../runtimes/installs.js';
import { checkLaneLogin } from './login.js';
import { refuseUnvouchedConfig } from '../../settings/config-trust.js';
import { ignoredRequesters, unfilteredNetwork, unprotectedLoosening, warningOf } from './lane-run-warnings.js';
import { markRun, sweepDeadRuns } from './leftovers.js';
import { startRunLog, sweepOldRunLogs } from '../logs/run-logs.js';
import { boardHooks, watchLanes, type ProgressListener } from './run-progress.js';
import { makeNotifier, notifyEvents, type Notifier } from './notify.js';

export interface LaneRunInput extends LaneFlags {
  verb: 'build' | 'drain';
  item?: ItemKey;
  attended: boolean;
  note?: string;
  /** build: wait this long for a held item instead of leaving a pending request. */
  waitMs?: number;
  /** build: work on the item even when it is done (its steers and pending request with it). */
  reopen?: boolean;
  gate: GateRunner;
  onOutput?: (chunk: string) => void;
  /** Every lane's state whenever one changes (the terminal's live lines). */
  onProgress?: ProgressListener;
  /** Said once, before any agent runs, when agents run without the sandbox. */
  onWarning?: (text: string) => void;
}

export type RunOutcome = CycleRecord['outcome'] | 'pending' | 'idle';

export interface LaneRunResult {
  verb: 'build' | 'drain';
  outcome: RunOutcome;
  exit: number;
  runId?: string;
  ref?: string;
  lifecycle?: string;
  sandbox?: string;
  login?: string;
  warning?: string;
  /** Unsandboxed: the agents ran with this computer's network and files. */
  hostAccess?: ('network' | 'files')[];
  record?: LaneResultRecord;
  pending?: PendingOutcome;
  publishError?: string;
}

// How often a build with --wait re-reads a held item.
const WAIT_POLL_MS = 1000;

export async function runLane(repo: Repo, input: LaneRunInput): Promise<LaneRunResult> {
  const { clock, env } = repo.deps;
  // bubblewrap's probe (a process) runs while the remote is read.
  const probe = probeBwrap(env);
  const main = await resolveMain(repo);
  let snap = await readSnapshot(repo, [main.fetchSpec]);
  const mainTip = await main.tipIn(snap);
  // A drain never leaves a request, so its login check always runs: it runs while main is read.
  const early = input.verb === 'drain' ? checkLaneLogin(repo, input.attended) : undefined;
  early?.catch(() => undefined); // awaited below, after the refusals that come first
  // The item sources are main's: which there are, and a GitHub source's repository and labels.
  const configRead = readRepoConfig(repo.git, mainTip);
  const [config, listing] = await settledInOrder(
    configRead,
    input.item ? configRead.then((c) => requireItem(openItemSources(repo, c), mainTip, input.item!)) : Promise.resolve(undefined),
  );
  const cfg = config.lanes ?? {};
  // A config on main that loosens the sandbox counts only as the person signed or approved it.
  const configTrust = await refuseUnvouchedConfig(repo, { mainTip, snap });
  // A request for a held item needs no agent, sandbox or deadline: it only leaves a note.
  const busy = input.verb === 'build' && input.item ? await heldByOther(repo, snap, input.item) : undefined;
  if (busy && input.item) {
    const pending = await requestFollowUp(repo, {
      snap,
      item: input.item,
      holder: busy,
      ...(input.note !== undefined ? { note: input.note } : {}),
    });
    if (!input.waitMs) return { verb: 'build', outcome: 'pending', exit: 0, pending };
    // --wait: the request stands in the slot either way; once the item is free this build
    // answers it, unless the active lane already did (then there is nothing left to do).
    const until = Math.min(clock.now() + input.waitMs, laneSettings(input, cfg, env, clock.now()).deadline);
    snap = await waitUntilFree(repo, input.item, main.fetchSpec, until);
  }
  // The listing matches main's tip only while no later read moved it (a --wait re-reads).
  const firstListing = busy ? undefined : listing;
  const asked = laneSettings(input, cfg, env, clock.now());
  await probe;
  // The sandbox's refusal comes before the login's, however fast either answers.
  const [{ sandbox, warning }, login] = await settledInOrder(
    chooseSandbox(asked.sandbox, { env, attended: input.attended }),
    early ?? checkLaneLogin(repo, input.attended),
  );
  const unsandboxed = unfilteredNetwork(sandbox, cfg);
  if (unsandboxed) input.onWarning?.(unsandboxed);
  // Where the model key goes is known once the sandbox is: through the gateway, or the agent's env list.
  const { install } = runtimeSpec(asked.runtime);
  const gateway = gatewayCarriesKey(install, sandbox);
  const s = withKeyPassed(asked, keyPassedByDefault(install, gateway));
  checkModelKeyPassed(install, env, s.passed, { gateway });
  const held = await heldKeyOf(s.setup, { gateway, home: repo.deps.config.home });
  // A lane whose checks could not run sandboxed refuses before it claims or pays for anything.
  if (config.land?.checks?.length) await chooseCheckSandbox(config.land.sandbox ?? 'auto', repo, { lane: { attended: input.attended } });
  const hide = [...secretPlaces(env, repo.deps.config), ...keyFilesOf(keyFileSettings(config.lanes), repo.deps.config.home)];
  const program = sandbox === 'bwrap' ? await programOf(repo, s, hide, cfg) : await unsandboxedProgram(repo, s);
  return runWith(repo, input, s, {
    main,
    sandbox,
    hide,
    program,
    login,
    ...(held ? { heldKey: held.key } : {}),
    first: snap,
    ...(firstListing ? { firstListing } : {}),
    cfg: { tip: mainTip, config },
    ...(warningOf([warning, unsandboxed, ignoredRequesters(cfg), unprotectedLoosening(configTrust, config)]) ?? {}),
  });
}

interface RunOptions {
  main: Awaited<ReturnType<typeof resolveMain>>;
  sandbox: 'bwrap' | 'none';
  hide: string[];
  program: RunContext['program'];
  login: string;
  /** The model key read from the runtime's keyFile, which the gateway holds. */
  heldKey?: string;
  first: Snapshot;
  firstListing?: ItemListing;
  cfg: { tip: string; config: RepoConfig };
  warning?: string;
}

async function runWith(repo: Repo, input: LaneRunInput, s: LaneSettings, o: RunOptions): Promise<LaneRunResult> {
  const { clock } = repo.deps;
  const runId = newRunId(clock.now());
  const lanes = input.verb === 'build' ? 1 : s.lanes;
  const rec = new RunRecorder(repo, {
    runId,
    verb: input.verb,
    holder: repo.me,
    lifecycle: s.lifecycle,
    lanes,
    startedAt: clock.now(),
    runtime: s.runtime,
  });
  const notify = laneNotifier(repo, o.cfg.config, runId);
  rec.onCycle = (c) => notify?.cycle(c);
  const ctx = runContext(repo, input, s, o, { runId, rec });

  // What runs killed with -9 left in this clone and the temporary directory goes meanwhile, and old runs' logs.
  const sweeping = Promise.all([
    sweepDeadRuns(repo, (lost) => notify?.lostRun(lost)),
    sweepOldRunLogs(repo.commonDir, { retentionMs: s.logRetentionMs, now: clock.now(), keep: runId }),
  ]);
  const [unmark, logged] = await Promise.all([
    markRun(repo, runId),
    startRunLog(repo.commonDir, { runId, verb: input.verb, startedAt: clock.now() }),
  ]);
  rec.start();
  const loop = await runLanes(ctx, rec, {
    lifecycle: s.lifecycle,
    lanes,
    idleMs: s.idleMs,
    maxCycles: s.maxCycles,
    first: o.first,
    ...(o.firstListing ? { firstListing: o.firstListing } : {}),
    ...(input.item ? { bound: input.item } : {}),
    ...(input.item && input.reopen ? { reopen: true } : {}),
  }).finally(unmark);
  const stop = loop.stop;
  const end = stop ? (isRefusal(stop) ? stop.code : 'internal') : 'ok';
  // The webhook's posts are counted in the record: its last write waits for them, bounded.
  if (notify) {
    // A lost run the sweep found is told of in this run's counts too.
    await sweeping;
    notify.runEnd(end);
    rec.record.notify = await notify.settle();
  }
  await Promise.all([rec.finish(end), logged(end, clock.now())]);
  await sweeping;
  return runAnswer(input, s, o, { runId, rec, loop });
}

/** The run's answer: its outcome, exit and record; thrown with the refusal that stopped it, if one did. */
function runAnswer(
  input: LaneRunInput,
  s: LaneSettings,
  o: RunOptions,
  r: { runId: string; rec: RunRecorder; loop: Awaited<ReturnType<typeof runLanes>> },
): LaneRunResult {
  const { runId, rec, loop } = r;
  const stop = loop.stop;
  const outcome = summarize(loop.cycles);
  const exit = exitOf(input.verb, loop.cycles);
  const result: LaneRunResult = {
    verb: input.verb,
    outcome,
    exit,
    runId,
    ref: rec.ref,
    lifecycle: s.lifecycle,
    sandbox: o.sandbox,
    login: o.login,
    ...(o.warning ? { warning: o.warning } : {}),
    ...(o.sandbox === 'none' ? { hostAccess: ['network' as const, 'files' as const] } : {}),
    record: rec.record,
    ...(rec.lastError ? { publishError: rec.lastError.message } : {}),
  };
  if (stop) {
    if (!isRefusal(stop)) throw stop;
    (stop as Refusal).data.result = result;
    throw stop;
  }
  return result;
}

/** What every cycle of the run shares: the repository, the sources, the runtime, the sandbox, the limits. */
function runContext(repo: Repo, input: LaneRunInput, s: LaneSettings, o: RunOptions, r: { runId: string; rec: RunRecorder }): RunContext {
  const { clock } = repo.deps;
  const { runId, rec } = r;
  const ctx: RunContext = {
    repo,
    runId,
    source: openItemSources(repo, o.cfg.config),
    configAt: configReader(repo, o.cfg),
    main: o.main,
    gate: input.gate,
    runtime: s.setup.runtime(repo.deps.env, o.heldKey),
    sandbox: o.sandbox,
    program: o.program,
    attended: input.attended,
    envNames: s.envNames,
    ttlMs: s.ttlMs,
    agentTimeoutMs: s.agentTimeoutMs,
    maxCycles: s.maxCycles,
    deadline: s.deadline,
    budgetDir: budgetDir(repo.deps.config.machineDir),
    // secretPlaces covers abcd's config folder (the credential channel) and the temporary folder
    // (other lanes' cycle folders); the cycle's own folder is bound back in on top.
    hide: o.hide,
    ...(repo.deps.signal ? { signal: repo.deps.signal } : {}),
    ...(input.onOutput ? { onOutput: input.onOutput } : {}),
    ...boardHooks(watchLanes(clock, rec, input.onProgress)),
  };
  return ctx;
}

/** lanes.notify's notifier, when configured: the URL is read from this process's own environment. */
function laneNotifier(repo: Repo, config: RepoConfig, runId: string): Notifier | undefined {
  const n = config.lanes?.notify;
  if (!n) return undefined;
  return makeNotifier({
    url: repo.deps.env[n.env],
    events: notifyEvents(n.events),
    run: { runId, holder: formatHolder(repo.me) },
    clock: repo.deps.clock,
  });
}

/** Where the agent's program is, as its sandbox must show it; refuses when it cannot be shown. */
async function programOf(repo: Repo, s: LaneSettings, hide: readonly string[], cfg: LanesConfig) {
  const { env, config } = repo.deps;
  const hidden = laneHidden({ hide, repo });
  // Never shown, even read-only: everything hidden but HOME and the temporary folders themselves.
  const secret = hidden.filter((p) => p !== config.home && p !== config.tmpDir && p !== '/tmp');
  const view = await agentProgramView({
    command: s.program,
    path: env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    cwd: repo.deps.cwd,
    home: config.home,
    hidden,
    secret,
    bind: cfg.bind ?? [],
    runtime: s.runtime,
  });
  const more = runtimeSpec(s.runtime).programBinds?.(view.binds, secret) ?? [];
  return more.length ? { ...view, binds: [...view.binds, ...more] } : view;
}

/** Unsandboxed, the sandbox shows nothing, but a program that is not there is named before anything is claimed. */
async function unsandboxedProgram(repo: Repo, s: LaneSettings): Promise<RunContext['program']> {
  const path = repo.deps.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
  await requireAgentProgram({ command: s.program, path, cwd: repo.deps.cwd, runtime: s.runtime });
  return { binds: [], symlinks: [] };
}

/** The run's outcome: its latest cycle's (build), or the worst of them (drain); idle with none. */
function summarize(cycles: readonly CycleRecord[]): RunOutcome {
  if (cycles.length === 0) return 'idle';
  return cycles.find((c) => c.outcome !== 'landed')?.outcome ?? 'landed';
}

function exitOf(verb: 'build' | 'drain', cycles: readonly CycleRecord[]): number {
  if (verb === 'drain') return cycles.some((c) => c.outcome !== 'landed') ? 3 : 0;
  const last = cycles.at(-1);
  if (!last || last.outcome === 'landed') return 0;
  if (last.outcome === 'timeout') return 4;
  if (last.outcome === 'cancelled') return 130;
  return 3;
}

/** The holder of a live (or expired, not yet takeable) claim on the item by another session. */
async function heldByOther(repo: Repo, snap: Snapshot, item: ItemKey) {
  const e = snap.claims.get(claimRef(item));
  if (!e || e.claim.state !== 'held' || sameSession(e.claim.holder, repo.me)) return undefined;
  const now = repo.deps.clock.now();
  const st = standing(e, repo.me, now, snap.settings, await repo.sightings.see(e.ref, e.tip, now));
  return st.kind === 'held' || st.kind === 'expired' || st.kind === 'clock-unsafe' ? e.claim.holder : undefined;
}

async function waitUntilFree(repo: Repo, item: ItemKey, fetchSpec: string, until: number): Promise<Snapshot> {
  const { clock } = repo.deps;
  const started = clock.now();
  for (;;) {
    const snap = await readSnapshot(repo, [fetchSpec]);
    if (!(await heldByOther(repo, snap, item))) return snap;
    if (clock.now() >= until) {
      throw new DeadlineReached(
        `waited ${Math.round((clock.now() - started) / 1000)}s for ${shortItem(item)} to be free; the --wait deadline passed and nothing was built.`,
        {
          item: formatItem(item),
          waitedMs: clock.now() - started,
        },
      );
    }
    await clock.sleep(Math.min(WAIT_POLL_MS, until - clock.now()), repo.deps.signal);
    if (repo.deps.signal?.aborted)
      throw new Interrupted(`stopped while waiting for ${shortItem(item)}; nothing was built.`, { item: formatItem(item) });
  }
}

/**
 * A bound build names an item its source lists: one of a source this repository has not set up,
 * a missing one or one that is not an item (an issue without the ready label) is refused in the
 * source's words, before anything is claimed.
 */
async function requireItem(sources: ItemSources, mainTip: string, item: ItemKey): Promise<ItemListing> {
  sources.of(item);
  const listing = await sources.list(mainTip);
  const key = formatItem(item);
  if (listing.items.some((i) => formatItem(i.key) === key)) return listing;
  throw await sources.whyNotListed(item, mainTip);
}

/** Both values, read side by side; a failure of the first wins, as when they were read one after the other. */
async function settledInOrder<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b]);
  if (ra.status === 'rejected') throw ra.reason;
  if (rb.status === 'rejected') throw rb.reason;
  return [ra.value, rb.value];
}

/**
 * main's .abcd/config.json by commit, read once per commit in a run: the entry's read serves
 * every cycle whose run head is the same commit (a commit's blob never changes).
 */
function configReader(repo: Repo, seen: { tip: string; config: RepoConfig }): (commit: string) => Promise<RepoConfig> {
  const cache = new Map<string, Promise<RepoConfig>>([[seen.tip, Promise.resolve(seen.config)]]);
  return (commit) => {
    let c = cache.get(commit);
    if (!c) {
      c = readRepoConfig(repo.git, commit);
      cache.clear(); // main moves forward: only the newest commit is asked for again
      cache.set(commit, c);
      c.catch(() => cache.delete(commit)); // the caller gets the error; the next cycle reads that commit again
    }
    return c;
  };
}

function newRunId(now: number): string {
  const t = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${t}-${randomBytes(3).toString('hex')}`;
}
