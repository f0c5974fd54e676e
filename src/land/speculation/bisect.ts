// Settling a batch (ADR 0096): which of its entries land, in which pieces, and which are
// refused. The whole batch is tested first; when that fails it is split in halves, both halves
// tested at once on the same base (two test slots), and a half that passes becomes a piece that
// lands: the next tests stack on it. An entry is refused only on a failure of its own test,
// alone, on a base that lands (main, or a piece before it), or of a tree equal to it. A single
// failing entry among N is found in at most ceil(log2 N) + 1 rounds, and the others land.
// Pure: the tests are the caller's (a real integration and check run, or a script in a test).

/** What one test of some entries on a base said. `ran`: false when a known verdict answered it. */
export type Outcome<F> = { ok: true; landing: string; ran: boolean } | { ok: false; failure: F; ran: boolean };

export interface SettleIo<M, F> {
  /** Stacks `members` on `base` and runs the checks (tests of one round run at the same time). */
  test(members: readonly M[], base: string): Promise<Outcome<F>>;
  /** The outcome of a test already run beside the whole batch's (a spare slot's), if there was one. */
  peek?(members: readonly M[], base: string): Promise<Outcome<F> | undefined>;
}

export interface Piece<M> {
  members: M[];
  base: string;
  landing: string;
}

export interface Settled<M, F> {
  /** In landing order: each piece's base is main or the piece before it. */
  pieces: Piece<M>[];
  refused: { member: M; failure: F }[];
  /** What main becomes: the last piece's landing, or the base when nothing lands. */
  top: string;
  /** Rounds in which at least one check ran. */
  rounds: number;
}

/** Settles `members` on `base`; `first`, when given, is the whole batch's outcome on it. */
export async function settleBatch<M, F>(
  io: SettleIo<M, F>,
  members: readonly M[],
  base: string,
  first?: Outcome<F>,
): Promise<Settled<M, F>> {
  const out: Settled<M, F> = { pieces: [], refused: [], top: base, rounds: 0 };
  const round = async (tests: [readonly M[], string][]) => {
    const rs = await Promise.all(tests.map(([m, b]) => io.test(m, b)));
    if (rs.some((r) => r.ran)) out.rounds++;
    return rs;
  };
  const land = (set: readonly M[], b: string, landing: string) => {
    out.pieces.push({ members: [...set], base: b, landing });
    return landing;
  };
  const refuse = (member: M, failure: F, b: string) => {
    out.refused.push({ member, failure });
    return b;
  };
  // `known`: the set failed on `b` (for one entry, its own refusal; for more, a reason to split at once).
  const solve = async (set: readonly M[], b: string, known?: F): Promise<string> => {
    if (set.length === 0) return b;
    if (known === undefined) {
      const [r] = set === members && b === base && first ? [first] : await round([[set, b]]);
      if (r!.ok) return land(set, b, r!.landing);
      known = r!.failure;
    }
    if (set.length === 1) return refuse(set[0]!, known, b);
    const half = Math.ceil(set.length / 2);
    const [left, right] = [set.slice(0, half), set.slice(half)];
    const early = await io.peek?.(left, b);
    // The first half passed beside the whole batch: it lands, and the second half is what failed on it.
    if (early?.ok) return solve(right, land(left, b, early.landing));
    const [l, r] = (
      early
        ? [early, ...(await round([[right, b]]))]
        : await round([
            [left, b],
            [right, b],
          ])
    ) as [Outcome<F>, Outcome<F>];
    if (l.ok) {
      const next = land(left, b, l.landing);
      // Failed alone on a base that lands: refused. Otherwise its test on the piece says (the whole
      // batch's tree, usually: a known verdict, no new run).
      if (!r.ok && right.length === 1) return refuse(right[0]!, r.failure, next);
      return solve(right, next);
    }
    if (r.ok) return solve(left, land(right, b, r.landing), l.failure);
    const after = await solve(left, b, l.failure);
    return solve(right, after, after === b || right.length === 1 ? r.failure : undefined);
  };
  out.top = await solve(members, base);
  return out;
}
