// The spend log beside the pool: what `abcd budget` shows per runtime and per item over the
// last day. Format (its version is the pool file's: a change to it is a new budget.json version):
//
//   <machine dir>/budget/spend.jsonl   one debit per line, oldest first, only ever replaced whole:
//     {"at":<ms>,"runtime":"command","item":"fix-login","tokens":<n>,"usd":<dollars>}
//
// Rewritten under the pool's lock at each debit, trimmed to the last day and to a line count,
// so it stays small however long lanes run. A line it cannot read is dropped at the next
// rewrite and counted meanwhile: the log only informs, the pool file is what limits.
import { randomBytes } from '../../core/builtins.js';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownedName } from '../gate/paths.js';
import type { ProcessId } from '../gate/process.js';
import { addCounts, safeCount, safeUsd } from './usage.js';

export const SPEND_FILE = 'spend.jsonl';
/** How far back `abcd budget` shows spend. */
export const SPEND_WINDOW_MS = 86_400_000;
// A day of eight lanes with one-minute cycles is about 11,500 debits; past this the oldest go
// first and the view says from when it counts.
export const MAX_SPEND_ENTRIES = 20_000;
const MAX_NAME_CHARS = 200;

export interface SpendEntry {
  at: number;
  runtime: string;
  item: string;
  tokens: number;
  usd: number;
}

export interface SpendLog {
  entries: SpendEntry[];
  /** Lines that were not a debit (a broken or foreign write). */
  ignored: number;
}

export function readSpendLog(dir: string): SpendLog {
  let text: string;
  try {
    text = readFileSync(join(dir, SPEND_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], ignored: 0 };
    throw e;
  }
  const entries: SpendEntry[] = [];
  let ignored = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const e = entryOf(line);
    if (e) entries.push(e);
    else ignored++;
  }
  return { entries, ignored };
}

/** Adds one debit and drops what the view no longer needs; called under the pool's lock. */
export function appendSpend(dir: string, entry: SpendEntry, me: ProcessId): void {
  const kept = readSpendLog(dir).entries.filter((e) => e.at > entry.at - SPEND_WINDOW_MS);
  const next = [...kept, entry].slice(-MAX_SPEND_ENTRIES);
  const tmp = join(dir, ownedName('tmp', me, randomBytes(6).toString('hex')) + '.tmp');
  writeFileSync(tmp, next.map((e) => JSON.stringify(e) + '\n').join(''), { flag: 'wx', mode: 0o644 });
  renameSync(tmp, join(dir, SPEND_FILE));
}

export interface SpendTotal {
  /** Cycles that debited something. */
  debits: number;
  tokens: number;
  usd: number;
}

export interface SpendSummary extends SpendTotal {
  /** The instant the view counts from: a day ago, or the oldest debit kept when the log was full. */
  since: number;
  byRuntime: (SpendTotal & { runtime: string })[];
  byItem: (SpendTotal & { item: string })[];
  ignored: number;
}

/** The last day's spend, per runtime and per item (most tokens first). */
export function summarizeSpend(log: SpendLog, now: number): SpendSummary {
  const dayAgo = now - SPEND_WINDOW_MS;
  const recent = log.entries.filter((e) => e.at > dayAgo);
  const full = log.entries.length >= MAX_SPEND_ENTRIES;
  const since = full && recent[0] ? Math.max(dayAgo, recent[0].at) : dayAgo;
  const runtimes = new Map<string, SpendTotal>();
  const items = new Map<string, SpendTotal>();
  const all = zero();
  for (const e of recent) {
    for (const t of [all, bucket(runtimes, e.runtime), bucket(items, e.item)]) add(t, e);
  }
  return {
    ...all,
    since,
    byRuntime: sorted(runtimes).map(([runtime, t]) => ({ runtime, ...t })),
    byItem: sorted(items).map(([item, t]) => ({ item, ...t })),
    ignored: log.ignored,
  };
}

function zero(): SpendTotal {
  return { debits: 0, tokens: 0, usd: 0 };
}

function bucket(m: Map<string, SpendTotal>, key: string): SpendTotal {
  let t = m.get(key);
  if (!t) m.set(key, (t = zero()));
  return t;
}

function add(t: SpendTotal, e: SpendEntry): void {
  t.debits++;
  t.tokens = addCounts(t.tokens, e.tokens);
  t.usd = safeUsd(t.usd + e.usd);
}

function sorted(m: Map<string, SpendTotal>): [string, SpendTotal][] {
  return [...m].sort(([ka, a], [kb, b]) => b.tokens - a.tokens || b.usd - a.usd || (ka < kb ? -1 : 1));
}

function entryOf(line: string): SpendEntry | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    // a single parse: one line of the spend log, which a broken or foreign write may have left
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  const name = (x: unknown) => typeof x === 'string' && x.length > 0 && x.length <= MAX_NAME_CHARS;
  const num = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
  if (!num(o.at) || !name(o.runtime) || !name(o.item) || !num(o.tokens) || !num(o.usd)) return null;
  return { at: o.at, runtime: o.runtime as string, item: o.item as string, tokens: safeCount(o.tokens), usd: safeUsd(o.usd) };
}
