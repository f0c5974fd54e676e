// The team budget across a real partition: two hosts in network namespaces drain one smart-HTTP
// remote. The host cut off mid-cycle cannot settle its reservation; the other settles it at the
// amount reserved after its expiry plus the takeover delay; back on the network, the cut host is
// fenced and counts nothing more.
import { basename, dirname } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../../harness/git-env.js';
import { startHttpGitServer, type HttpGitServer } from '../../harness/http-server.js';
import { makeNetnsLab, netnsUnavailable, type NetnsLab } from '../../harness/netns.js';
import { laneSession, remoteWithItems } from '../../harness/lanes.js';
import { ABCD_BIN, lastJson, type AbcdRun, type Json, type Session } from '../../harness/session.js';
import { LEDGER_REF, remoteLedger, signingPerson, spendingAgent } from '../../harness/team-budget.js';

const unavailable = await netnsUnavailable();
if (unavailable) console.warn(`team budget partition test skipped: ${unavailable}`);

const RESERVE = 100;

async function abcdIn(ns: string, s: Session, args: string[]): Promise<AbcdRun> {
  const r = await execa('ip', ['netns', 'exec', ns, process.execPath, ABCD_BIN, ...args], {
    cwd: s.dir,
    env: s.env,
    extendEnv: false,
    reject: false,
    timeout: 120_000,
  });
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr), json: lastJson(String(r.stdout)) };
}

async function until(what: string, done: () => Promise<boolean>, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe.skipIf(unavailable !== undefined)('the team budget across a partition (network namespaces)', () => {
  let lab: NetnsLab | undefined;
  let server: HttpGitServer | undefined;
  afterAll(async () => {
    await server?.stop();
    await lab?.destroy();
    await cleanupTemp();
  });

  it('a host cut off mid-cycle has its reservation settled by the other, and is fenced on return', async () => {
    const remote = await remoteWithItems([{ slug: 'cut' }], { lanes: { cycleReserve: RESERVE, agentTimeout: '5s' } });
    // Set up over file:// before the hosts move behind the network.
    const owner = await signingPerson(remote);
    expect((await owner.abcd(['budget', 'set', '10000', '--team'])).code).toBe(0);
    expect((await owner.abcd(['settings', 'takeover-delay', '1s'])).code).toBe(0);
    const hosts = await Promise.all([laneSession(remote, 'net-cut'), laneSession(remote, 'net-watch')]);
    lab = await makeNetnsLab(2);
    server = await startHttpGitServer({ root: dirname(remote.dir), host: '0.0.0.0', netns: lab.server });
    for (const [i, s] of hosts.entries()) {
      await s.git(['remote', 'set-url', 'origin', `http://${lab.serverAddress(i)}:${server.port}/${basename(remote.dir)}`]);
    }
    const [cut, watch] = hosts as [Session, Session];
    const [nsCut, nsWatch] = lab.hosts as [string, string];

    const draining = abcdIn(nsCut, cut, ['drain', '--json', '--lanes', '1', '--agent', spendingAgent(90, 'sleep 3; ')]);
    await until('the reservation to be open', async () => ((await remoteLedger(remote))?.open?.length ?? 0) === 1);
    await lab.cut(0);
    let view: Json;
    await until('the lapsed reservation to be settled', async () => {
      const r = await abcdIn(nsWatch, watch, ['budget', '--team', '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      view = r.json;
      return view.expired === 1;
    });
    expect(view).toMatchObject({ settledNow: 1, spent: RESERVE, open: [] });
    await lab.restore(0);
    const r = await draining;
    expect(r.code, r.stdout + r.stderr).toBe(5);
    expect(r.json.refusal).toMatchObject({ code: 'fenced', data: { ref: LEDGER_REF, item: 'cut' } });
    expect(await remoteLedger(remote)).toMatchObject({ expired: 1, settled: 0, spent: RESERVE, open: [] });
  }, 180_000);
});
