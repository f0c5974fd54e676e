// The `command` runtime's usage file (ABCD_USAGE): the agent appends one JSON object per
// line, either `{"tokens":1234}` or the named fields of a cycle's usage:
//
//   {"inputTokens":900,"outputTokens":300,"cacheReadTokens":0,"cacheWriteTokens":34,"costUsd":0.012,"model":"m","sessionId":"s","turns":1}
//
// The file is the agent's (hostile): a line that is not such an object is ignored and
// counted, never a crash and never a negative debit that would refill the pool.
import { sanitizeLine } from '../../core/sanitize.js';
import { addUsage, emptyUsage, type CycleUsage } from './usage.js';

// One line's count beyond this is a lie or a bug; counting it would empty every pool.
const MAX_TOKENS_PER_LINE = 1e12;
// One line's cost beyond this, likewise.
const MAX_USD_PER_LINE = 1e6;
// A model name or session id longer than this is not one; it goes to the result record.
const MAX_NAME_CHARS = 200;

const COUNTS = ['tokens', 'inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'turns'] as const;

/** The usage the agent's lines add up to; `ignoredLines` says how many it could not read. */
export function readCommandUsage(text: string): CycleUsage {
  let total = emptyUsage();
  let ignored = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const one = usageOfLine(line);
    if (one === null) ignored++;
    else total = addUsage(total, one);
  }
  return ignored ? { ...total, ignoredLines: ignored } : total;
}

/** One line's usage, or null when the line is not a usage object with at least one count. */
function usageOfLine(line: string): CycleUsage | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    // a single parse: one line the agent wrote, which may be anything
    return null;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const n: Partial<Record<(typeof COUNTS)[number], number>> = {};
  for (const k of COUNTS) {
    if (o[k] === undefined) continue;
    const x = o[k];
    if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0 || x > MAX_TOKENS_PER_LINE) return null;
    n[k] = x;
  }
  const cost = o.costUsd;
  if (cost !== undefined && (typeof cost !== 'number' || !Number.isFinite(cost) || cost < 0 || cost > MAX_USD_PER_LINE)) return null;
  if (Object.keys(n).length === 0 && cost === undefined) return null;
  const model = nameOf(o.model);
  const sessionId = nameOf(o.sessionId);
  if (model === null || sessionId === null) return null;
  return {
    inputTokens: n.inputTokens ?? 0,
    outputTokens: n.outputTokens ?? 0,
    cacheReadTokens: n.cacheReadTokens ?? 0,
    cacheWriteTokens: n.cacheWriteTokens ?? 0,
    ...(n.tokens ? { otherTokens: n.tokens } : {}),
    costUsd: cost ?? 0,
    // A line is one model turn unless it says how many.
    turns: n.turns ?? 1,
    ...(model !== undefined ? { model } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
  };
}

/** A name the agent gave: absent, a safe bounded line of text, or null when it is no string. */
function nameOf(x: unknown): string | undefined | null {
  if (x === undefined) return undefined;
  if (typeof x !== 'string' || x.length === 0) return null;
  return sanitizeLine(x, MAX_NAME_CHARS);
}
