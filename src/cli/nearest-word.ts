// "did you mean": the known word nearest a typo, by edit distance (insert, delete, substitute,
// or swap two neighbours: `statsu` is one swap from `status`).

// Past this many edits (or half the word) a guess is more likely wrong than helpful.
const MAX_EDITS = 2;

export function nearestWord(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const word of known) {
    const d = editDistance(typed, word);
    if (d < bestDistance) [best, bestDistance] = [word, d];
  }
  return bestDistance <= Math.min(MAX_EDITS, Math.ceil(typed.length / 2)) ? best : undefined;
}

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of a substring). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}
