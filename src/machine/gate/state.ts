// The load gate's state on disk, its schema, and the queue rule. Format:
//
//   <machine dir>/gate/state.json   one JSON object, only ever replaced whole by rename(2):
//     {"abcd":"gate","v":1,"next":<next ticket>,"entries":[<entry>...]}
//   entry: {"ticket":7,"pid":4242,"start":"1234567"|null,"command":"npm test","slots":2,
//           "at":<queued, ms>,"until":<gives up waiting, ms>,
//           "holding":{"since":<ms>,"child":{"pid":4250,"start":"1234570"}}}   (holders only)
//
// `start` is field 22 of /proc/<pid>/stat. Tickets come from `next`, which only grows, so
// queue order never depends on pids. Every change happens under the lock (gate-lock.ts);
// readers without the lock see the old or the new file, never half of one.
import { randomBytes } from '../../core/builtins.js';
import { safeParseValue } from '../../core/schema-parse.js';
import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { RecordInvalid, RecordTooNew } from '../../core/refusals.js';
import { STATE_FILE, ownedName, parseOwnedName } from './paths.js';
import type { ProcessId } from './process.js';
import { lazySchema } from '../../core/lazy-schema.js';

const GATE_VERSION = 1;
// A waiter past its own deadline removes itself; others drop its entry only after this much
// more, so a stopped (SIGSTOP) or wedged waiter cannot hold the queue past its deadline.
export const STALE_WAITER_GRACE_MS = 2000;

const ProcessIdSchema = lazySchema(() => z.object({ pid: z.number().int().positive(), start: z.string().nullable() }));
const EntrySchema = lazySchema(() =>
  z.object({
    ticket: z.number().int().positive(),
    pid: z.number().int().positive(),
    start: z.string().nullable(),
    command: z.string(),
    slots: z.number().int().positive(),
    at: z.number(),
    until: z.number(),
    holding: z.object({ since: z.number(), child: ProcessIdSchema.optional() }).optional(),
  }),
);
const StateSchema = lazySchema(() =>
  z.object({
    abcd: z.literal('gate'),
    v: z.literal(GATE_VERSION),
    next: z.number().int().positive(),
    entries: z.array(EntrySchema),
  }),
);

export type GateEntry = z.infer<typeof EntrySchema>;
export type GateState = z.infer<typeof StateSchema>;

export function emptyState(): GateState {
  return { abcd: 'gate', v: GATE_VERSION, next: 1, entries: [] };
}

/** Reads state.json; a missing file is an empty gate. A newer or broken file is refused, never guessed. */
export function readState(dir: string): GateState {
  const path = join(dir, STATE_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return emptyState();
    throw e;
  }
  return decodeState(path, text);
}

function decodeState(path: string, text: string): GateState {
  const fix = 'Remove it when no "abcd gate" is running on this computer.';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new RecordInvalid(`the load gate's ${path} is not JSON (${(e as Error).message}). ${fix}`, { ref: path, reason: 'not-json' });
  }
  const v = (value as { v?: unknown } | null)?.v;
  if (typeof v === 'number' && v > GATE_VERSION) {
    throw new RecordTooNew(
      `the load gate's ${path} is gate version ${v}, newer than version ${GATE_VERSION} that this abcd reads; ` +
        'upgrade abcd, or wait until the newer one is done.',
      { ref: path, kind: 'gate', version: v, known: GATE_VERSION },
    );
  }
  const parsed = safeParseValue(StateSchema, value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    throw new RecordInvalid(`the load gate's ${path} does not match the gate v1 schema (${issues}). ${fix}`, {
      ref: path,
      reason: 'schema',
      issues,
    });
  }
  return parsed.data;
}

/** Replaces state.json atomically: write a temp file named after this process, then rename. */
export function writeState(dir: string, state: GateState, me: ProcessId): void {
  const tmp = join(dir, ownedName('tmp', me, randomBytes(6).toString('hex')) + '.tmp');
  writeFileSync(tmp, JSON.stringify(state) + '\n', { flag: 'wx', mode: 0o644 });
  renameSync(tmp, join(dir, STATE_FILE));
}

export interface Liveness {
  isAlive(id: ProcessId): boolean;
  now: number;
}

/** An entry counts while its writer runs, or, for a holder, while the command it started runs. */
export function isEntryLive(e: GateEntry, l: Liveness): boolean {
  if (!e.holding && l.now > e.until + STALE_WAITER_GRACE_MS) return false;
  if (l.isAlive({ pid: e.pid, start: e.start })) return true;
  return e.holding?.child !== undefined && l.isAlive(e.holding.child);
}

/** Splits entries into live ones (by ticket) and dead ones to drop. */
export function splitLive(state: GateState, l: Liveness): { live: GateEntry[]; dead: GateEntry[] } {
  const live: GateEntry[] = [];
  const dead: GateEntry[] = [];
  for (const e of state.entries) (isEntryLive(e, l) ? live : dead).push(e);
  live.sort((a, b) => a.ticket - b.ticket);
  return { live, dead };
}

/**
 * The queue rule: a waiter takes a slot only when fewer than `slots` live entries hold one
 * AND no live waiter with a lower ticket is still waiting. Tickets only, never pids.
 */
export function mayTake(live: readonly GateEntry[], ticket: number, slots: number): boolean {
  const holders = live.filter((e) => e.holding).length;
  return holders < slots && !live.some((e) => !e.holding && e.ticket < ticket);
}

/** Removes temp files and lock stages that dead processes left behind (best effort). */
export function clearLeftovers(dir: string, isAlive: (id: ProcessId) => boolean): void {
  for (const name of readdirSync(dir)) {
    const p = parseOwnedName(name);
    if (p && (p.kind === 'tmp' || p.kind === 'stage') && !isAlive(p.who)) {
      rmSync(join(dir, name), { recursive: true, force: true });
    }
  }
}
