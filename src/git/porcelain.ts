/** One ref's line of `git push --porcelain`. */
export interface PorcelainRef {
  flag: string;
  ref: string;
  summary: string;
  /** The parenthesised reason of a rejection: "stale info", "non-fast-forward", ... */
  reason?: string;
}

/**
 * Parses push porcelain per ref. Over HTTP a refused push can cut this short, so the
 * result is a hint: callers decide from git's exit code and the remote's refs.
 */
export function parsePushPorcelain(stdout: string): PorcelainRef[] {
  const out: PorcelainRef[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^([ +\-*!=])\t([^\t]*)\t(.*)$/.exec(line);
    if (!m) continue;
    const [, flag, spec, summary] = m as unknown as [string, string, string, string];
    const ref = spec.includes(':') ? spec.slice(spec.lastIndexOf(':') + 1) : spec;
    const reason = /\(([^)]*)\)\s*$/.exec(summary)?.[1];
    out.push({ flag, ref, summary, ...(reason ? { reason } : {}) });
  }
  return out;
}

export function isRejected(p: PorcelainRef): boolean {
  return p.flag === '!';
}
