// A slot once taken: name the command running in it, and give it back.
import type { GateDeps, ProcessId } from './process.js';
import type { GateEntry, GateState } from './state.js';

export interface GateLease {
  readonly ticket: number;
  readonly waitedMs: number;
  /** Names the command started under the slot: the slot stays taken while it runs, even if we die. */
  attachChild(child: ProcessId): Promise<void>;
  release(): Promise<void>;
}

/** Runs fn on the state under the gate's lock, waiting for the lock until `by`. */
export type Locked = <T>(fn: (s: GateState) => T, by?: number) => Promise<T>;

// How long a release may wait for the lock; the lock is held for one small file's rewrite.
export const RELEASE_LOCK_WAIT_MS = 5000;

export function makeLease(o: {
  deps: GateDeps;
  me: ProcessId;
  ticket: number;
  waitedMs: number;
  locked: Locked;
  write: (s: GateState) => void;
}): GateLease {
  const isMine = (e: GateEntry) => e.ticket === o.ticket && e.pid === o.me.pid;
  const soon = () => o.deps.clock.now() + RELEASE_LOCK_WAIT_MS;
  let released = false;
  return {
    ticket: o.ticket,
    waitedMs: o.waitedMs,
    attachChild: (child) =>
      o.locked((s) => {
        const entries = s.entries.map((e) => (isMine(e) && e.holding ? { ...e, holding: { ...e.holding, child } } : e));
        o.write({ ...s, entries });
      }, soon()),
    async release() {
      if (released) return;
      released = true;
      await o.locked((s) => {
        if (s.entries.some(isMine)) o.write({ ...s, entries: s.entries.filter((e) => !isMine(e)) });
      }, soon());
    },
  };
}
