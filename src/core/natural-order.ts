// The one order in which people read names: `item-2` before `item-10`. Runs of digits compare
// by value, everything else by code unit (never by locale, so every machine sorts alike).

const CHUNKS = /\d+|\D+/g;

/** Compares two names naturally; a tie on value (`a01`, `a1`) falls back to the plain order. */
export function compareNatural(a: string, b: string): number {
  const x = a.match(CHUNKS) ?? [];
  const y = b.match(CHUNKS) ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    if (isDigits(p) && isDigits(q)) {
      // By length of the digits without leading zeros, then digit by digit: no precision limit.
      const u = p.replace(/^0+(?=\d)/, '');
      const v = q.replace(/^0+(?=\d)/, '');
      if (u.length !== v.length) return u.length - v.length;
      if (u !== v) return u < v ? -1 : 1;
      continue;
    }
    return p < q ? -1 : 1;
  }
  if (x.length !== y.length) return x.length - y.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

function isDigits(s: string): boolean {
  return s.charCodeAt(0) >= 48 && s.charCodeAt(0) <= 57;
}
