// land starts its first read (the records and main, one fetch) as soon as the clone is open,
// while its own modules load: that fetch is the land's read, never a second one beside it, and
// it ends by the deadline of the land's wait like every other network call of that wait, or
// when the land refuses before reading.
import { basename, dirname } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { startHttpGitServer, type HttpGitRequest, type HttpGitServer } from '../harness/http-server.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';

// Timers and process exits run late at load 30: what abcd measures may be late by this much.
const LOADED_MACHINE_MS = 3000;

const fetchStarts = (reqs: HttpGitRequest[]) => reqs.filter((q) => q.path.endsWith('/info/refs') && q.query.includes('git-upload-pack'));
const pushes = (reqs: HttpGitRequest[]) => reqs.filter((q) => q.method === 'POST' && q.path.endsWith('/git-receive-pack'));

/**
 * A session over smart HTTP holding `item` with one commit to land: on its work branch, or
 * (`onMain`) on main itself. The server stops when `act` ends.
 */
async function heldOverHttp(
  item: string,
  act: (o: { s: Session; remote: BareRemote; server: HttpGitServer; head: string }) => Promise<void>,
  o: { onMain?: boolean } = {},
): Promise<void> {
  const remote = await makeRemote();
  const server = await startHttpGitServer({ root: dirname(remote.dir) });
  try {
    const s = await makeSession(server.url(basename(remote.dir)), item);
    expect((await s.abcd(['reserve', item, '--json'])).code).toBe(0);
    if (!o.onMain) await s.git(['checkout', '-q', '-b', `work/${item}`]);
    const head = await s.commit(`${item}.txt`, `${item}\n`);
    await act({ s, remote, server, head });
  } finally {
    await server.stop();
  }
}

describe("land's first read", () => {
  afterAll(cleanupTemp);

  it('is one fetch before the enqueue push, and the land lands', () =>
    heldOverHttp('early', async ({ s, remote, server, head }) => {
      const before = (await server.requests()).length;
      const r = await s.abcd(['land', 'early', '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const reqs = (await server.requests()).slice(before);
      const firstPush = reqs.indexOf(pushes(reqs)[0]!);
      expect(firstPush).toBeGreaterThan(0);
      expect(fetchStarts(reqs.slice(0, firstPush))).toHaveLength(1);
      expect((await remote.refs()).get('refs/heads/main')).toBe(head);
    }));

  it('against a server that never answers the fetch ends within a second of the --wait deadline, naming it', () =>
    heldOverHttp('silent', async ({ s, remote, server }) => {
      const mainBefore = (await remote.refs()).get('refs/heads/main');
      await server.stall('rpc');
      const r = await s.abcd(['land', 'silent', '--wait', '2s', '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(8);
      expect(r.json.refusal).toMatchObject({ code: 'remote-unavailable', data: { outcome: 'unchanged', waitMs: 2000 } });
      // What abcd measured from the start of its wait: the deadline plus at most one second.
      expect(r.json.refusal.data.waitedMs).toBeGreaterThanOrEqual(1900);
      expect(r.json.refusal.data.waitedMs).toBeLessThanOrEqual(2000 + 1000 + LOADED_MACHINE_MS);
      expect(r.json.refusal.message).toMatch(/deadline of this wait \(2s/);
      expect(pushes(await server.requests())).toHaveLength(1); // the reserve's, nothing of the land's
      expect((await remote.refs()).get('refs/heads/main')).toBe(mainBefore);
    }));

  it('a land refused before it reads does not wait for that fetch, even from a server that never answers', () =>
    heldOverHttp(
      'onmain',
      async ({ s, server }) => {
        await server.stall('all');
        // git may take 10 minutes and the wait 30: only the refusal's own end lets this run finish in time.
        const r = await s.abcd(['land', 'onmain', '--json'], { env: { ABCD_NETWORK_TIMEOUT: '10m' }, timeoutMs: 60_000 });
        expect(r.code, r.stdout + r.stderr).toBe(3);
        expect(r.json.refusal).toMatchObject({ code: 'branch-refused', data: { reason: 'main', branch: 'main' } });
        // The early fetch did reach the server: the land did start it, then ended it.
        expect(fetchStarts(await server.requests()).length).toBeGreaterThan(0);
      },
      { onMain: true },
    ));
});
