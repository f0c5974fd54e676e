// Turns raw argv values into typed verb input; every bad value is a UsageError (exit 2).
import { parseItem, type ItemKey } from '../records/item.js';
import { UsageError } from '../core/refusals.js';
import { parseDuration } from '../core/duration.js';
import { MAX_NOTE_CHARS, MAX_TTL_MS } from '../records/limits.js';

// A claim shorter than this cannot be renewed in time by anything that does real work.
const MIN_TTL_MS = 1000;

export function itemArg(value: unknown): ItemKey {
  // yargs turns a stray "-x" into a flag, leaving no string: say so rather than "".
  if (typeof value !== 'string' || value === '') {
    throw new UsageError('no item given; an item is a slug such as fix-login and cannot start with "-".', 'item', {
      reason: 'missing or starts with "-"',
    });
  }
  return parseItem(value);
}

export function ttlArg(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(String(value), '--ttl');
  if (ms < MIN_TTL_MS) {
    throw new UsageError(`--ttl ${String(value)} is too short: a claim lives at least 1s (e.g. --ttl 30m).`, 'ttl', { ttl: String(value) });
  }
  if (ms > MAX_TTL_MS) {
    throw new UsageError(`--ttl ${String(value)} is over 30d; renew a claim rather than hold it for longer.`, 'ttl', {
      ttl: String(value),
    });
  }
  return ms;
}

export function durationArg(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  // Zero needs no unit: `--wait 0` means do not wait.
  if (String(value).trim() === '0') return 0;
  return parseDuration(String(value), name);
}

export function listArg(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

export function noteArg(v: unknown): string {
  const note = String(v);
  if (note.length > MAX_NOTE_CHARS) throw new UsageError(`--note is ${note.length} characters, over ${MAX_NOTE_CHARS}.`, 'argument');
  // eslint-disable-next-line no-control-regex -- a note with control characters is what this refuses: it reaches terminals
  if (/[\u0000-\u001f\u007f]/.test(note))
    throw new UsageError('--note has control characters (newlines, tabs, escapes): write it on one line.', 'argument');
  return note;
}
