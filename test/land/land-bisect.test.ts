// The batch settling rule on scripted tests: which entries land, which are refused, and how
// many check rounds it takes. A "tree" here is the set of entries on main plus those tested;
// a failure is known by its tree (the land keeps them so), so a retest of the same tree runs no check.
import { describe, expect, it } from 'vitest';
import { settleBatch, type Outcome } from '../../src/land/speculation/bisect.js';

/** Bases are landings: '' is main, 'a+c' is main after a and c landed. */
function scripted(fails: (tree: Set<string>) => boolean) {
  const known = new Set<string>();
  let runs = 0;
  const io = {
    async test(members: readonly string[], base: string): Promise<Outcome<string>> {
      const tree = new Set([...(base ? base.split('+') : []), ...members]);
      const key = [...tree].sort().join(',');
      if (known.has(key)) return { ok: false, failure: key, ran: false };
      runs++;
      if (fails(tree)) {
        known.add(key);
        return { ok: false, failure: key, ran: true };
      }
      return { ok: true, landing: [...(base ? [base] : []), ...members].join('+'), ran: true };
    },
  };
  return { io, runs: () => runs };
}

const entries = (n: number) => Array.from({ length: n }, (_, k) => String.fromCharCode(97 + k));

describe('settling a batch', () => {
  it('lands a passing batch in one round, as one piece', async () => {
    const { io, runs } = scripted(() => false);
    const s = await settleBatch(io, entries(4), '');
    expect(s).toMatchObject({ refused: [], top: 'a+b+c+d', rounds: 1 });
    expect(s.pieces).toEqual([{ members: ['a', 'b', 'c', 'd'], base: '', landing: 'a+b+c+d' }]);
    expect(runs()).toBe(1);
  });

  for (const n of [2, 3, 4, 5, 8]) {
    for (const bad of entries(n)) {
      it(`finds the one failing entry ${bad} of ${n} in at most ceil(log2 ${n}) + 1 rounds and lands the rest`, async () => {
        const { io } = scripted((t) => t.has(bad));
        const s = await settleBatch(io, entries(n), '');
        expect(s.refused.map((r) => r.member)).toEqual([bad]);
        const landed = s.pieces.flatMap((p) => p.members);
        expect(landed.sort()).toEqual(entries(n).filter((e) => e !== bad));
        expect(s.rounds).toBeLessThanOrEqual(Math.ceil(Math.log2(n)) + 1);
        // Each piece stacks on the one before: main's first-parent history is a chain.
        let base = '';
        for (const p of s.pieces) {
          expect(p.base).toBe(base);
          base = p.landing;
        }
        expect(s.top).toBe(base);
        // The refusal is a failure of a tree holding the entry, on a base that landed.
        expect(s.refused[0]!.failure.split(',')).toContain(bad);
      });
    }
  }

  it('refuses every failing entry and lands every other one when several fail', async () => {
    const { io } = scripted((t) => t.has('b') || t.has('g'));
    const s = await settleBatch(io, entries(8), '');
    expect(s.refused.map((r) => r.member).sort()).toEqual(['b', 'g']);
    expect(s.pieces.flatMap((p) => p.members).sort()).toEqual(['a', 'c', 'd', 'e', 'f', 'h']);
  });

  it('refuses the later of two entries that fail only together, landing the earlier', async () => {
    const { io } = scripted((t) => t.has('b') && t.has('c'));
    const s = await settleBatch(io, entries(4), '');
    expect(s.refused.map((r) => r.member)).toHaveLength(1);
    const landed = s.pieces.flatMap((p) => p.members);
    expect(landed).toHaveLength(3);
    expect(landed.includes('b') && landed.includes('c')).toBe(false);
  });

  it('refuses them all when every entry fails, testing nothing twice', async () => {
    const { io, runs } = scripted(() => true);
    const s = await settleBatch(io, entries(4), '');
    expect(s.pieces).toEqual([]);
    expect(s.refused.map((r) => r.member).sort()).toEqual(entries(4));
    expect(s.top).toBe('');
    expect(runs()).toBe(new Set(['abcd', 'ab', 'cd', 'a', 'b', 'c', 'd']).size);
  });

  it('takes the whole batch outcome it was given instead of testing again', async () => {
    const { io, runs } = scripted((t) => t.has('a'));
    const s = await settleBatch(io, ['a', 'b'], '', { ok: false, failure: 'a,b', ran: true });
    expect(s.refused.map((r) => r.member)).toEqual(['a']);
    expect(runs()).toBe(2);
  });

  it('takes the first half tested beside the whole batch: one failing entry of 4 in 2 rounds', async () => {
    for (const bad of ['c', 'd']) {
      const { io } = scripted((t) => t.has(bad));
      // The whole batch and its first half, tested side by side.
      const [first, spare] = await Promise.all([io.test(entries(4), ''), io.test(['a', 'b'], '')]);
      const peek = async (m: readonly string[], b: string) => (m.join() === 'a,b' && b === '' ? spare : undefined);
      const s = await settleBatch({ ...io, peek }, entries(4), '', first);
      expect(s.refused.map((r) => r.member)).toEqual([bad]);
      expect(s.pieces.flatMap((p) => p.members).sort()).toEqual(entries(4).filter((e) => e !== bad));
      // The batch's own round was the first; only one more ran.
      expect(s.rounds).toBe(1);
    }
  });
});
