// A team budget reservation whose lane never settles it: a computer killed with -9 mid-cycle,
// and one cut off from the remote mid-cycle. Another computer settles the reservation at the
// amount reserved once it is past expiry plus the takeover delay by its own watching, exactly
// once; the cut-off one, back on the remote, finds it settled and is fenced, counting nothing more.
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../../harness/git-env.js';
import { laneSession, remoteWithItems, killProcessesWith } from '../../harness/lanes.js';
import { ABCD_BIN, lastJson, type Json, type Session } from '../../harness/session.js';
import { until } from '../../harness/steer.js';
import { LEDGER_REF, remoteLedger, signingPerson, spendingAgent } from '../../harness/team-budget.js';
import type { BareRemote } from '../../harness/remote.js';

afterAll(cleanupTemp);

const RESERVE = 100;
const USED = 90;
// The reservation lives the agent's timeout plus a margin (10 s): short here, so the test is.
const CONFIG = { lanes: { cycleReserve: RESERVE, agentTimeout: '5s' } };

async function teamWithPool(items: string[]): Promise<{ remote: BareRemote; owner: Session }> {
  const remote = await remoteWithItems(
    items.map((slug) => ({ slug })),
    CONFIG,
  );
  const owner = await signingPerson(remote);
  expect((await owner.abcd(['budget', 'set', '10000', '--team'])).code).toBe(0);
  expect((await owner.abcd(['settings', 'takeover-delay', '1s'])).code).toBe(0);
  return { remote, owner };
}

function drainInBackground(s: Session, agent: string) {
  return execa(process.execPath, [ABCD_BIN, 'drain', '--json', '--lanes', '1', '--agent', agent], {
    cwd: s.dir,
    env: s.env,
    extendEnv: false,
    reject: false,
  });
}

/** Watches the team pool from `s` until the open reservation was settled at its amount. */
async function settleFrom(s: Session): Promise<Json> {
  let last: Json;
  await until(
    'the lapsed reservation to be settled at the amount reserved',
    async () => {
      const r = await s.abcd(['budget', '--team', '--json']);
      expect(r.code, r.stderr).toBe(0);
      last = r.json;
      return last.expired === 1;
    },
    90_000,
  );
  return last;
}

describe.concurrent('a reservation its lane never settles', () => {
  it('a computer killed with -9 mid-cycle: another settles its reservation at the amount reserved, once', async () => {
    const { remote } = await teamWithPool(['doomed']);
    const marker = `team-doomed-${process.pid}-${Date.now()}`;
    const doomed = await laneSession(remote, 'doomed-host');
    const watcher = await laneSession(remote, 'watcher-host');
    const run = drainInBackground(doomed, spendingAgent(USED, `sleep 60 # ${marker}\n`));
    await until('the reservation to be open', async () => ((await remoteLedger(remote))?.open?.length ?? 0) === 1);
    run.kill('SIGKILL');
    await run;
    await killProcessesWith(marker);
    const open = (await remoteLedger(remote))!.open[0];
    expect(open).toMatchObject({
      item: 'doomed',
      tokens: RESERVE,
      ttl: 15_000,
      holder: { session: expect.stringContaining('doomed-host') },
    });

    // Not before its expiry plus the delay: the first look only starts the watch.
    const first = await watcher.abcd(['budget', '--team', '--json']);
    expect(first.json).toMatchObject({ settledNow: 0, expired: 0, reserved: { tokens: RESERVE } });
    const settled = await settleFrom(watcher);
    expect(settled).toMatchObject({ settledNow: 1, spent: RESERVE, reserved: { tokens: 0 }, open: [], settled: 0 });
    expect(settled.byItem).toEqual([{ name: 'doomed', tokens: RESERVE, usd: 1, cycles: 1 }]);
    // Never counted twice: another look, and the ledger on the remote, still say once.
    const again = await watcher.abcd(['budget', '--team', '--json']);
    expect(again.json).toMatchObject({ settledNow: 0, expired: 1, spent: RESERVE });
    expect(await remoteLedger(remote)).toMatchObject({ expired: 1, spent: RESERVE, open: [] });
  }, 150_000);

  it('a computer cut off mid-cycle: its reservation is settled for it, and on return it is fenced', async () => {
    const { remote } = await teamWithPool(['cut']);
    const cut = await laneSession(remote, 'cut-host');
    const watcher = await laneSession(remote, 'watcher-host');
    const url = await cut.git(['remote', 'get-url', 'origin']);
    const run = drainInBackground(cut, spendingAgent(USED, 'sleep 3; '));
    await until('the reservation to be open', async () => ((await remoteLedger(remote))?.open?.length ?? 0) === 1);
    // The remote goes out of reach for this computer alone: its settle cannot get through.
    await cut.git(['remote', 'set-url', 'origin', `${remote.dir}-unreachable`]);
    await watcher.abcd(['budget', '--team', '--json']);
    const settled = await settleFrom(watcher);
    expect(settled).toMatchObject({ settledNow: 1, spent: RESERVE, open: [] });
    await cut.git(['remote', 'set-url', 'origin', url]);
    const r = await run;
    const answer = lastJson(String(r.stdout)) as Json;
    expect(r.exitCode, String(r.stdout) + String(r.stderr)).toBe(5);
    expect(answer.refusal).toMatchObject({ code: 'fenced', data: { ref: LEDGER_REF, item: 'cut' } });
    // What it used is not counted on top of what was reserved for it.
    expect(await remoteLedger(remote)).toMatchObject({ expired: 1, settled: 0, spent: RESERVE, open: [] });
  }, 150_000);
});
