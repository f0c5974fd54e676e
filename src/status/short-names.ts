// Holder names as a list shows them: `person/host/session` cut to the parts that tell the
// holders in view apart (most fleets are one person on one host, told apart by session).
/** Each holder's shortest name that still tells it from the others in `holders`. */
export function shortHolderNames(holders: readonly string[]): Map<string, string> {
  const distinct = [...new Set(holders)];
  const parts = distinct.map((h) => h.split('/'));
  const width = Math.max(0, ...parts.map((p) => p.length));
  // A part every holder shares says nothing; with one holder, its person says who.
  const differs = Array.from({ length: width }, (_, i) => new Set(parts.map((p) => p[i] ?? '')).size > 1);
  const out = new Map<string, string>();
  distinct.forEach((h, j) => {
    const kept = parts[j]!.filter((_, i) => differs[i]);
    out.set(h, kept.length ? kept.join('/') : (parts[j]![0] ?? h));
  });
  return out;
}
