// The agent part of a cycle, steered: open requests go into the mailbox before the agent
// starts, new ones are appended while it runs, and when some arrive after it exited 0 the
// agent is invoked once more in the same worktree with their envelope (within the cap).
import type { ItemDoc } from '../items/source.js';
import type { Repo } from '../repo/repo.js';
import type { Taken } from './claim.js';
import type { RunContext } from './context.js';
import { runAgent, type AgentRun } from './run-agent.js';
import { steerSettings } from './steer-settings.js';
import { SteerWatcher } from './watcher.js';

type AgentOptions = Parameters<typeof runAgent>[0];

/** What `collect` gave or threw, taken while the watcher's last look ran. */
export type Collected<T> = { ok: true; value: T } | { ok: false; error: unknown };

export async function runSteeredAgent<T>(
  ctx: RunContext,
  lane: Repo,
  o: { agent: AgentOptions; item: ItemDoc; taken: Taken; mailbox: string; runHead: string; collect: () => Promise<T> },
): Promise<{ run: AgentRun; watcher: SteerWatcher; collected?: Collected<T> }> {
  const { clock } = lane.deps;
  const settings = steerSettings(await ctx.configAt(o.runHead), o.agent.timeoutMs);
  const watcher = new SteerWatcher(ctx, lane, { item: o.item, taken: o.taken, mailbox: o.mailbox, runHead: o.runHead, settings });
  // Fails open: a first read that fails steers nothing now, and the requests stay open.
  await watcher.prime(o.taken.seen).catch(() => undefined);
  let agent = o.agent;
  let total: AgentRun | undefined;
  for (let round = 1; ; round++) {
    watcher.begin(clock.now() + agent.timeoutMs);
    const run = await runAgent({ ...agent, onExit: () => watcher.exited() });
    watcher.exited();
    total = total
      ? { ...run, durationMs: total.durationMs + run.durationMs, outputTail: (total.outputTail + run.outputTail).slice(-2000) }
      : run;
    if (run.exitCode !== 0 || run.stopped || run.timedOut || agent.signal?.aborted) return { run: total, watcher };
    // The agent's work is taken (locally, as objects) while the watcher looks for late
    // requests (a round trip); when some re-invoke the agent, that take is dropped unused.
    const [next, collected] = await Promise.all([
      // Fails open: a late look that fails re-invokes nothing, and its requests stay open.
      watcher.afterExit().catch(() => undefined),
      o.collect().then(
        (value): Collected<T> => ({ ok: true, value }),
        (error: unknown): Collected<T> => ({ ok: false, error }),
      ),
    ]);
    if (!next) return { run: total, watcher, collected };
    // The same command in the same worktree; ABCD_MAILBOX_FROM says where the new envelope starts.
    agent = {
      ...o.agent,
      timeoutMs: next.timeoutMs,
      env: { ...o.agent.env, ABCD_MAILBOX_FROM: String(next.from), ABCD_STEER_ROUND: String(round + 1) },
    };
  }
}
