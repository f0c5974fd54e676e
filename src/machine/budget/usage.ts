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
