// The machine's load gate: at most `slots` heavy jobs at once on this computer, waiters
// served strictly in ticket order, every wait bounded by a deadline. State and
// format: gate-state.ts; lock: gate-lock.ts.
import { systemClock } from '../../core/deps.js';
import { DeadlineReached } from '../../core/refusals.js';
import { type GateLease, type Locked, RELEASE_LOCK_WAIT_MS, makeLease } from './lease.js';
import { withGateLock } from './lock.js';
import { ensureGateDir } from './paths.js';
import { type GateDeps, type ProcessId, isProcessAlive } from './process.js';
import { gateDeadline, lockDeadline } from './refusal.js';
import { type GateEntry, type GateState, clearLeftovers, mayTake, readState, splitLive, writeState } from './state.js';
import { watchGate } from './watch.js';

export type { GateLease } from './lease.js';

// A fallback for missed file-change events; fs.watch usually wakes a waiter much sooner.
const POLL_MS = 100;

export interface GateOptions {
  /** The gate's folder: gateDir(deps.config.machineDir). */
  dir: string;
  slots: number;
  /** How long to wait for a slot before DeadlineReached. */
  waitMs: number;
  /** What the slot is for, shown to other users (`npm test`). */
  label: string;
  deps: GateDeps;
  /** Told before each wait for a slot: this waiter's ticket, live entries ahead of it, time left. */
  onWait?: (w: { ticket: number; ahead: number; leftMs: number }) => void;
}

/** What one wait for a slot works with: who waits, since when and until when, and the state read and written under the lock. */
function waitContext(o: GateOptions) {
  const { dir, deps } = o;
  ensureGateDir(dir);
  const me: ProcessId = { pid: deps.pid, start: deps.startTime(deps.pid) };
  const startedAt = deps.clock.now();
  const until = startedAt + o.waitMs;
  const locked: Locked = (fn, by = until + RELEASE_LOCK_WAIT_MS) =>
    withGateLock(dir, deps, by, () => fn(readState(dir))).catch((e) =>
      lockDeadline(e, { dir, slots: o.slots, startedAt, now: deps.clock.now() }),
    );
  const write = (s: GateState) => writeState(dir, s, me);
  const split = (s: GateState) => splitLive(s, { isAlive: deps.isAlive, now: deps.clock.now() });
  return { me, startedAt, until, locked, write, split };
}

/** Takes a ticket and waits for a slot in ticket order. Refuses with DeadlineReached (exit 4). */
export async function acquireGate(o: GateOptions): Promise<GateLease> {
  const { dir, deps } = o;
  const { me, startedAt, until, locked, write, split } = waitContext(o);

  const enqueue = (s: GateState): number => {
    const ticket = s.next;
    const entry: GateEntry = { ticket, pid: me.pid, start: me.start, command: o.label, slots: o.slots, at: startedAt, until };
    write({ ...s, next: ticket + 1, entries: [...split(s).live, entry] });
    return ticket;
  };
  let ticket = await locked((s) => {
    clearLeftovers(dir, deps.isAlive);
    return enqueue(s);
  });
  const isMine = (e: GateEntry) => e.ticket === ticket && e.pid === me.pid;

  // One locked step: drop dead entries, then take the slot, give up, or keep waiting.
  const step = (s: GateState): 'took' | 'wait' | { gaveUp: GateEntry[] } => {
    const now = deps.clock.now();
    const { live, dead } = split(s);
    const mine = live.find(isMine);
    if (!mine && now < until) {
      ticket = enqueue(s); // our entry was removed by hand: queue again rather than run unseen
      return 'wait';
    }
    if (mine && mayTake(live, ticket, o.slots)) {
      write({ ...s, entries: live.map((e) => (e === mine ? { ...e, holding: { since: now } } : e)) });
      return 'took';
    }
    if (now >= until) {
      write({ ...s, entries: live.filter((e) => e !== mine) });
      return { gaveUp: live };
    }
    if (dead.length > 0) write({ ...s, entries: live });
    return 'wait';
  };

  const watch = watchGate(dir);
  try {
    for (;;) {
      // Look without the lock first; take it only when there is something for us to do.
      const { live, dead } = split(readState(dir));
      const now = deps.clock.now();
      if (dead.length > 0 || now >= until || !live.some(isMine) || mayTake(live, ticket, o.slots)) {
        const r = await locked(step);
        if (r === 'took') break;
        if (r !== 'wait') throw gateDeadline({ dir, slots: o.slots, ticket, startedAt, now: deps.clock.now(), live: r.gaveUp });
      }
      o.onWait?.({ ticket, ahead: live.filter((e) => e.ticket < ticket).length, leftMs: until - now });
      await watch.wait(deps.clock, Math.max(1, Math.min(until - deps.clock.now(), POLL_MS)));
    }
  } catch (e) {
    // cleanup: fails safe if it fails too, a dead or expired waiter's entry is dropped by the next reader.
    if (!(e instanceof DeadlineReached)) await locked((s) => write({ ...s, entries: s.entries.filter((x) => !isMine(x)) })).catch(() => {});
    throw e;
  } finally {
    watch.close();
  }
  return makeLease({ deps, me, ticket, waitedMs: deps.clock.now() - startedAt, locked, write });
}

export interface GateView {
  holders: GateEntry[];
  waiters: GateEntry[];
}

const systemLiveness = { isAlive: isProcessAlive, clock: systemClock };

/** Live holders and waiters, in ticket order, read without the lock. Dead entries are left out. */
export function readGate(dir: string, deps: Pick<GateDeps, 'isAlive' | 'clock'> = systemLiveness): GateView {
  const { live } = splitLive(readState(dir), { isAlive: deps.isAlive, now: deps.clock.now() });
  return { holders: live.filter((e) => e.holding), waiters: live.filter((e) => !e.holding) };
}
