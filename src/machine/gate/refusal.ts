// The refusals a gate wait ends in: what was waited on, who held it, for how long.
import { DeadlineReached } from '../../core/refusals.js';
import { formatDuration } from '../../core/duration.js';
import { LockTimeout } from './lock.js';
import type { GateEntry } from './state.js';

interface Waited {
  dir: string;
  slots: number;
  startedAt: number;
  now: number;
}

/** A holder as a refusal and `abcd gate --status` name it. */
export function describeHolder(e: GateEntry, now: number) {
  const since = e.holding?.since ?? e.at;
  const child = e.holding?.child ? { childPid: e.holding.child.pid } : {};
  return { pid: e.pid, ticket: e.ticket, command: e.command, since, forMs: now - since, ...child };
}

/** The wait for a slot reached its deadline. `live` is the gate as last seen under the lock. */
export function gateDeadline(o: Waited & { ticket: number; live: GateEntry[] }): DeadlineReached {
  const waitedMs = o.now - o.startedAt;
  const holders = o.live.filter((e) => e.holding).map((e) => describeHolder(e, o.now));
  const ahead = o.live.filter((e) => !e.holding && e.ticket < o.ticket).map((e) => ({ pid: e.pid, ticket: e.ticket, command: e.command }));
  const held = holders.length
    ? holders.map((h) => `pid ${h.pid} (ticket ${h.ticket}, "${h.command}", for ${formatDuration(h.forMs)})`).join(', ')
    : 'no one';
  const queue = ahead.length ? `; ${ahead.length} waiter(s) ahead of ticket ${o.ticket}` : '';
  return new DeadlineReached(
    `waited ${formatDuration(waitedMs)} for the load gate at ${o.dir} (${o.slots} slot(s)) and gave up: held by ${held}${queue}. ` +
      'Try again later, give it longer with --wait, or see who holds it with "abcd gate --status".',
    { waitedOn: 'load-gate', gate: o.dir, slots: o.slots, ticket: o.ticket, waitedMs, holders, ahead },
  );
}

/** Turns a lock that stayed held into DeadlineReached; anything else passes through. */
export function lockDeadline(e: unknown, o: Waited): never {
  if (!(e instanceof LockTimeout)) throw e;
  const owners = e.owners.map((w) => w.pid);
  const waitedMs = o.now - o.startedAt;
  throw new DeadlineReached(
    `waited ${formatDuration(waitedMs)} for the load gate's lock at ${o.dir}, held by pid ${owners.join(', ')} ` +
      'that is alive but not letting go (stopped?). Check that process, then try again.',
    { waitedOn: 'load-gate-lock', gate: o.dir, slots: o.slots, waitedMs, lockOwners: e.owners },
  );
}
