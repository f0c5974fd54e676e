// Durations and instants as people write them (500ms, 5m, ISO times), parsed and printed.
import { UsageError } from './refusals.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+)(ms|s|m|h|d)$/;

/** Parses `500ms`, `90s`, `5m`, `2h`, `1d` into integer milliseconds. */
export function parseDuration(text: string, what = 'duration'): number {
  const m = DURATION.exec(text.trim());
  if (!m || m[1]!.length > 12) {
    throw new UsageError(`${what} "${text}" is not a duration: write a whole number and a unit, e.g. 500ms, 90s, 5m, 2h`, 'duration', {
      what,
      value: text,
    });
  }
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/** Renders milliseconds in the largest unit that keeps it readable: 1500 → "1.5s". */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  const a = Math.abs(ms);
  if (a < 1000) return `${sign}${Math.round(a)}ms`;
  if (a < 60_000) return `${sign}${trim(a / 1000)}s`;
  if (a < 3_600_000) return `${sign}${trim(a / 60_000)}m`;
  if (a < 86_400_000) return `${sign}${trim(a / 3_600_000)}h`;
  return `${sign}${trim(a / 86_400_000)}d`;
}

function trim(n: number): string {
  return n >= 10 ? String(Math.round(n)) : String(Math.round(n * 10) / 10);
}

/** Parses an RFC 3339 instant (for --deadline and ABCD_JOB_DEADLINE). */
export function parseInstant(text: string, what = 'deadline'): number {
  const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(text);
  const t = ok ? Date.parse(text) : NaN;
  if (Number.isNaN(t)) {
    throw new UsageError(`${what} "${text}" is not an RFC 3339 instant such as 2026-11-30T15:00:00Z`, 'duration', {
      what,
      value: text,
    });
  }
  return t;
}

/** An instant as people read it in messages: 2026-11-30T13:45:10Z. */
export function formatInstant(ms: number): string {
  const d = new Date(ms);
  // Total: a time no Date can hold is shown as its number rather than crashing a reader.
  return Number.isNaN(d.getTime()) ? `@${ms}ms` : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
