// 32 sessions, each its own clone, HOME and session, race to reserve one item: exactly one wins.
// Three rounds in the suite, each all 32 processes at once; ABCD_RACE_ROUNDS=10 (or more) for a
// longer hunt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';

const RACERS = 32;
const ROUNDS = Number(process.env.ABCD_RACE_ROUNDS ?? 3);

describe('reserve race', () => {
  let remote: BareRemote;
  let sessions: Session[];
  beforeAll(async () => {
    remote = await makeRemote();
    sessions = [];
    for (let i = 0; i < RACERS; i += 8) {
      const batch = Array.from({ length: Math.min(8, RACERS - i) }, (_, j) => makeSession(remote.url, `racer${i + j}`));
      sessions.push(...(await Promise.all(batch)));
    }
  }, 120_000);
  afterAll(cleanupTemp);

  it(`${RACERS} processes reserve the same item at once, ${ROUNDS} times: one exits 0, the rest exit 3 naming it`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const item = `race-${round}`;
      const runs = await Promise.all(sessions.map((s) => s.abcd(['reserve', item, '--json'], { timeoutMs: 110_000 })));
      const winners = runs.flatMap((r, i) => (r.code === 0 ? [i] : []));
      const odd = runs.filter((r) => r.code !== 0 && r.code !== 3).map((r) => r.stdout + r.stderr);
      expect(winners, `round ${round}: ${runs.map((r) => r.code).join(',')} ${odd.join(' | ')}`).toHaveLength(1);
      const winner = runs[winners[0]!]!.json.holder as string;
      expect(winner).toContain(`/racer${winners[0]}`);
      for (const [i, r] of runs.entries()) {
        if (i === winners[0]) continue;
        expect(r.code, `${sessions[i]!.name}: ${r.stdout} ${r.stderr}`).toBe(3);
        expect(r.json.refusal).toMatchObject({ code: 'held', data: { item, holder: winner } });
      }
      expect((await remote.refs()).get(`refs/heads/abcd/claims/local/item/${item}`)).toBe(runs[winners[0]!]!.json.claimTip);
      // The winner lets go, so no racer reaches its cap of 5 (a true cap-reached, not this race's answer).
      const released = await sessions[winners[0]!]!.abcd(['release', item, '--json']);
      expect(released.code, released.stdout + released.stderr).toBe(0);
    }
  }, 600_000);
});
