// `abcd land`: land the work branch on main through the queue, fenced by the claim.
import type { Command } from '../command.js';
import type { Deps } from '../../core/deps.js';
import type { GateRunner, LandInput, LandResult } from '../../land/land.js';
import type { Repo } from '../../repo/repo.js';
import { durationArg, itemArg } from '../args.js';
import { formatDuration, jsonInstant } from '../render.js';
import { machineGateContext } from '../../machine/gate/context.js';
import type { IntegrationStrategy } from '../../records/queue.js';
import type { ItemKey } from '../../records/item.js';
import type { Priority } from '../../land/queue/priority.js';
import { UsageError } from '../../core/refusals.js';
import { landedPullRequest } from '../../forges/landed.js';

// land waits in the queue for at most this long unless told otherwise.
const DEFAULT_WAIT_MS = 30 * 60_000;

export const land: Command = {
  command: 'land <item> [branch]',
  describe: 'enqueue fenced by the claim, wait for the turn, test on the main tip, and land in one atomic push',
  refusals: [
    'not-holder',
    'nothing-to-land',
    'branch-refused',
    'claim-ended',
    'item-invalid',
    'git-failed',
    'conflict',
    'check-failed',
    'secret-in-change',
    'forge-rejected',
    'deadline',
    'fenced',
    'record-too-new',
    'unsafe-environment',
    'remote-unavailable',
    'record-invalid',
    'interrupted',
    'not-approved',
    'held',
    'takeover-too-soon',
    'cap-reached',
    'clock-skewed',
    'landed',
  ],
  usesRemote: true,
  agentUse: 'land the work on main; the claim becomes done',
  examples: [
    ['abcd land fix-login', 'land the current branch onto main under the claim on fix-login'],
    ['abcd land fix-login work/fix-login --wait 10m --strategy merge', 'merge instead of rebase; give up after 10 minutes'],
    ['abcd land fix-login --strategy squash', "one commit on main: the item's title, its done mark inside"],
    [
      'abcd land fix-login --approve 20260101T120000Z-a1b2c3',
      "the person lands a lane run's work that changes protected paths (abcd review shows it)",
    ],
    ['abcd land hotfix --priority high', 'go ahead of normal work queued in the last 10 minutes (never ahead of a test already running)'],
  ],
  builder: (y) =>
    y
      .positional('item', { type: 'string', describe: 'the item this session holds' })
      .positional('branch', { type: 'string', describe: 'the work branch (default: the current branch)' })
      .option('wait', { type: 'string', describe: 'how long to wait for the queue (default 30m)' })
      .option('strategy', {
        choices: ['rebase', 'merge', 'squash'] as const,
        describe: 'how the work comes onto main (default: land.strategy in .abcd/config.json, else rebase)',
      })
      .option('approve', {
        type: 'string',
        describe: "the person only: land the work lane run <run> left for review (signed, as settings are); the branch is the run's",
      })
      .option('keep', { type: 'boolean', default: false, describe: 'keep the claim held after landing instead of marking it done' })
      .option('priority', {
        choices: ['high', 'normal', 'low'] as const,
        default: 'normal' as const,
        describe: 'its place in the land queue: high ranks as if queued land.priorityAge (10m) earlier, low as if that much later',
      }),
  async run(args, deps) {
    const input = {
      item: itemArg(args.item),
      ...(args.branch !== undefined ? { branch: String(args.branch) } : {}),
      waitMs: durationArg(args.wait, '--wait', DEFAULT_WAIT_MS),
      ...(args.strategy !== undefined ? { strategy: strategyArg(args.strategy) } : {}),
      keep: Boolean(args.keep),
      priority: args.priority === 'high' ? ('high' as const) : args.priority === 'low' ? ('low' as const) : ('normal' as const),
    };
    if (args.approve !== undefined) return approveCommand(args, input, deps);
    // The wait begins now, and its first read (the records and main) starts as soon as the
    // clone is open, under the wait's deadline, while the land's own modules load.
    const startedAt = deps.clock.now();
    const [{ openRepo }, { startLandRead }] = await Promise.all([import('../../repo/repo.js'), import('../../land/early-read.js')]);
    const repo = await openRepo(deps);
    await startLandRead(repo, input.waitMs, startedAt);
    const landed = landAfterEarlyRead(repo, input, startedAt, deps);
    // Whatever ends the land before it read (a refusal, a module that failed), its fetch ends too.
    const { r, seen, networkText } = await landed.finally(() => repo.store.abandonPrefetch());
    const checks = r.checks.length
      ? `, checks passed (${r.checks.map((c) => `${c.command} ${formatDuration(c.durationMs)}`).join('; ')})`
      : ', no checks configured';
    const warning = r.warning ? ` (${r.warning})` : '';
    const network = r.checksSandbox === 'bwrap' ? networkText(seen.counts()) : '';
    const pullRequest = landedPullRequest(r);
    return {
      json: { ...landJson(r), ...(r.checksSandbox ? sandboxJson(r.checksSandbox, seen.counts()) : {}) },
      text: pullRequest
        ? `landed ${r.item} on ${r.main} through ${pullRequest.said} (${pullRequest.via}) at ${r.tip.slice(0, 12)}; claim ${r.claim}`
        : `landed ${r.item} on ${r.main}: ${r.previousTip?.slice(0, 12)} -> ${r.tip.slice(0, 12)} after ${r.attempts} attempt(s)${checks}${network}; claim ${r.claim}${warning}`,
    };
  },
};

/** The land itself, once its first read is on its way: its modules, the person's watch, the gate. */
async function landAfterEarlyRead(repo: Repo, input: LandInput, startedAt: number, deps: Deps) {
  const [{ land: run }, { personLandWatch, networkText }] = await Promise.all([import('../../land/land.js'), import('../land-watch.js')]);
  const seen = personLandWatch(deps);
  const r = await run(repo, { ...input, startedAt, checkWatch: seen.watch }, await machineGate(deps));
  return { r, seen, networkText };
}

/** `--approve <run>`: the run's kept branch, approved in a signed settings generation, then landed. */
async function approveCommand(
  args: Record<string, unknown>,
  input: { item: ItemKey; branch?: string; waitMs: number; strategy?: IntegrationStrategy; keep: boolean; priority: Priority },
  deps: Deps,
) {
  const run = String(args.approve).trim();
  if (!/^[\x21-\x7e]{1,100}$/.test(run))
    throw new UsageError('--approve takes the id of the lane run whose work waits (abcd review shows it).', 'argument');
  if (input.branch !== undefined || input.keep)
    throw new UsageError(
      '--approve lands the branch the lane run kept, and marks the item done: give no branch and no --keep.',
      'argument',
    );
  const [{ openRepo }, { approveRun }, { personLandWatch }] = await Promise.all([
    import('../../repo/repo.js'),
    import('../../lanes/guards/approve.js'),
    import('../land-watch.js'),
  ]);
  const seen = personLandWatch(deps);
  const r = await approveRun(
    await openRepo(deps),
    {
      item: input.item,
      run,
      waitMs: input.waitMs,
      priority: input.priority,
      ...(input.strategy ? { strategy: input.strategy } : {}),
      checkWatch: seen.watch,
    },
    await machineGate(deps),
  );
  const { approved, ...landed } = r;
  return {
    json: { ...landJson(landed), ...(landed.checksSandbox ? sandboxJson(landed.checksSandbox, seen.counts()) : {}), approved },
    text:
      `approved run ${approved.run} of ${r.item} (${approved.paths.join(', ')}) in settings generation ${approved.generation.slice(0, 12)}; ` +
      `landed on ${r.main}: ${r.previousTip?.slice(0, 12) ?? ''} -> ${r.tip.slice(0, 12)}; claim ${r.claim}`,
  };
}

/** yargs checked the choice; the type says which. */
function strategyArg(v: unknown): IntegrationStrategy {
  return v === 'merge' ? 'merge' : v === 'squash' ? 'squash' : 'rebase';
}

/** The checks run under this computer's load gate. */
export async function machineGate(deps: Deps): Promise<GateRunner> {
  const { dir, slots, gateDeps } = await machineGateContext(deps);
  return async (label, untilMs, fn) => {
    // Loaded only for a land that has checks to run.
    const [{ acquireGate }, { gateWaitLine }] = await Promise.all([import('../../machine/gate/gate.js'), import('../wait-line.js')]);
    const lease = await acquireGate({
      dir,
      slots,
      waitMs: Math.max(0, untilMs - deps.clock.now()),
      label,
      deps: gateDeps,
      onWait: gateWaitLine(deps, 'the checks'),
    });
    deps.progress?.(null);
    try {
      return await fn();
    } finally {
      await lease.release();
    }
  };
}

/**
 * What the checks ran with: sandboxed, what they connected to through the egress proxy;
 * unsandboxed, that they had this computer's network and files.
 */
function sandboxJson(sandbox: 'bwrap' | 'none', network: { allowed: number; refused: number; hosts: string[] }) {
  return sandbox === 'bwrap' ? { network } : { hostAccess: ['network', 'files'] };
}

/** Land's answer in the shared vocabulary: `state` of the claim, absent keys as null (ADR 0030). */
function landJson(r: LandResult): Record<string, unknown> {
  const { claim, github, previousTip, ...rest } = r;
  return {
    ...rest,
    previousTip: previousTip ?? null,
    github: github ? { ...github, url: github.url ?? null } : null,
    enqueuedAt: jsonInstant(r.enqueuedAt),
    state: claim,
  };
}
