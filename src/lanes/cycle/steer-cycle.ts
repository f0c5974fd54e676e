// The agent part of a cycle, steered: the session's first turn carries the task and the
// requests open when it began; new ones reach a live session while a turn runs; when some
// arrive after a turn ended well, the same session takes them as one more turn (within the
// cap). The session stays open for the caller, which may run more turns (a conflict, a
// failing check) and closes it.
import type { ItemDoc } from '../../items/source.js';
import type { Repo } from '../../repo/repo.js';
import type { Taken } from './claim.js';
import type { RunContext } from './context.js';
import { taskPrompt } from './prompt.js';
import type { AgentSession, TurnKind, TurnResult } from '../runtimes/runtime.js';
import { steerSettings } from '../guards/steer-settings.js';
import { SteerWatcher } from '../run/watcher.js';
import { unlessRefusalOrSystemError } from '../../core/best-effort.js';

/** What `collect` gave or threw, taken while the watcher's last look ran. */
export type Collected<T> = { ok: true; value: T } | { ok: false; error: unknown };

// How much of the agent's output the turns of a cycle keep together.
const TAIL_CHARS = 2000;

export async function runSteeredAgent<T>(
  ctx: RunContext,
  lane: Repo,
  o: {
    session: AgentSession;
    item: ItemDoc;
    taken: Taken;
    /** The follow-up the person asked for (the mailbox's first line), if this run is one. */
    followUp?: string;
    runHead: string;
    timeoutMs: number;
    signal: AbortSignal;
    collect: () => Promise<T>;
  },
): Promise<{ run: TurnResult; watcher: SteerWatcher; collected?: Collected<T> }> {
  const { clock } = lane.deps;
  const settings = steerSettings(await ctx.configAt(o.runHead), o.timeoutMs);
  const watcher = new SteerWatcher(ctx, lane, { item: o.item, taken: o.taken, runHead: o.runHead, settings });
  // Fails open: a first read that fails steers nothing now, and the requests stay open.
  const primed = await watcher.prime(o.taken.seen).catch(unlessRefusalOrSystemError(undefined));
  let text = taskPrompt({ item: o.item, ...(o.followUp ? { followUp: o.followUp } : {}), ...(primed ? { envelope: primed } : {}) });
  let turn: { kind: TurnKind; timeoutMs: number; envelope?: string; onTaken?: () => void } = {
    kind: 'task',
    timeoutMs: o.timeoutMs,
    ...(primed ? { envelope: primed } : {}),
  };
  let total: TurnResult | undefined;
  for (;;) {
    watcher.begin(clock.now() + turn.timeoutMs, o.session.live ? (e) => o.session.steer(e) : undefined);
    const run = await o.session.turn(text, { ...turn, signal: o.signal, onExit: () => watcher.exited() });
    watcher.exited();
    total = total
      ? { ...run, durationMs: total.durationMs + run.durationMs, outputTail: (total.outputTail + run.outputTail).slice(-TAIL_CHARS) }
      : run;
    if (run.exitCode !== 0 || run.stopped || run.timedOut || o.signal.aborted) return { run: total, watcher };
    // The agent's work is taken (locally, as objects) while the watcher looks for late
    // requests (a round trip); when some start another turn, that take is dropped unused.
    const [next, collected] = await Promise.all([
      // Fails open: a late look that fails starts nothing, and its requests stay open.
      watcher.afterExit().catch(unlessRefusalOrSystemError(undefined)),
      o.collect().then(
        (value): Collected<T> => ({ ok: true, value }),
        (error: unknown): Collected<T> => ({ ok: false, error }),
      ),
    ]);
    if (!next) return { run: total, watcher, collected };
    text = next.envelope;
    turn = { kind: 'steer', timeoutMs: next.timeoutMs, envelope: next.envelope, onTaken: next.taken };
  }
}
