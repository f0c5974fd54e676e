// The lines an agent appends to ABCD_USAGE: one JSON object per line, `{"tokens":1234}`.
// The file is the agent's (hostile): a line that is not such an object is ignored and
// counted, never a crash and never a negative debit that would refill the pool.

export interface Usage {
  /** Model tokens the agent reported, summed over its valid lines. */
  tokens: number;
}

export interface ParsedUsage extends Usage {
  /** Lines that counted. */
  lines: number;
  /** Non-empty lines ignored: not JSON, not an object, or no whole non-negative `tokens`. */
  ignored: number;
}

// One line's tokens beyond this are a lie or a bug; counting them would empty every pool.
const MAX_TOKENS_PER_LINE = 1e12;

/** Sums the valid usage lines of `text`; says how many lines it ignored. */
export function parseUsageLines(text: string): ParsedUsage {
  let tokens = 0;
  let lines = 0;
  let ignored = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const t = tokensOf(line);
    if (t === null) ignored++;
    else {
      tokens = Math.min(Number.MAX_SAFE_INTEGER, tokens + t);
      lines++;
    }
  }
  return { tokens, lines, ignored };
}

function tokensOf(line: string): number | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const t = (v as { tokens?: unknown }).tokens;
  return typeof t === 'number' && Number.isSafeInteger(t) && t >= 0 && t <= MAX_TOKENS_PER_LINE ? t : null;
}

/**
 * What one cycle's agent used, as its runtime reported it: Claude Code's and Codex's own
 * result messages, or the `command` runtime's usage lines. Every count is a whole number
 * capped at 2^53 - 1; `costUsd` is what the runtime said it cost (0 when it says nothing).
 */
export interface CycleUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  /** Model turns (requests) the agent made. */
  turns: number;
  model?: string;
  /** The runtime's own session or thread id (what a resume continues). */
  sessionId?: string;
  /** Usage lines the `command` runtime could not read (hostile or broken): counted, never debited. */
  ignoredLines?: number;
}

/** A cycle that used nothing yet. */
export function emptyUsage(): CycleUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, turns: 0 };
}
