// Several abcd processes in ONE clone at once (two agents sharing a checkout, a status loop
// beside a reserve): they share the clone's record cache (its ref locks: the fetch retries on
// lock contention) and the sightings and held files under .git/abcd. Nothing may be corrupt
// and every answer must be true.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git } from '../harness/git-env.js';
import { makeRemote, writeRawRecord } from '../harness/remote.js';
import { makeSession, type AbcdRun } from '../harness/session.js';

const ROUNDS = 4;
// Readers beside the four reserves of each round.
const STATUSES = 4;
const STALE = ['stale-0', 'stale-1', 'stale-2', 'stale-3'];
const ref = (item: string) => `refs/heads/abcd/claims/local/item/${item}`;

/** A claim by someone else that lapsed two minutes ago: each reader records a sighting of it. */
function lapsed(item: string): string {
  return JSON.stringify({
    abcd: 'claim',
    v: 1,
    item: `local:item:${item}`,
    state: 'held',
    gen: 1,
    at: Date.now() - 180_000,
    ttl: 60_000,
    holder: { person: 'old@example.com', host: 'elsewhere', session: 'old' },
  });
}

describe('several abcd processes in one clone', () => {
  afterAll(cleanupTemp);

  it(`${4 + STATUSES} at once (reserves, a contested reserve, statuses), ${ROUNDS} rounds: every answer true, nothing corrupt`, async () => {
    const remote = await makeRemote();
    for (const item of STALE) await writeRawRecord(remote.dir, ref(item), lapsed(item));
    const s = await makeSession(remote.url, 'shared');
    // A long takeover delay: the lapsed claims are sighted by every reader but never taken over.
    expect((await s.abcd(['settings', 'takeover-delay', '1h'])).code).toBe(0);
    // One person holds every claim here: room for all of them under the per-person cap.
    expect((await s.abcd(['settings', 'reservation-cap', '100'])).code).toBe(0);
    const as = (session: string, args: string[]) => s.abcd([...args, '--json'], { env: { ABCD_SESSION: session }, timeoutMs: 110_000 });

    for (let round = 0; round < ROUNDS; round++) {
      // Everything at once; the statuses' fetches meet the reserves' ref updates in the cache.
      const [p, q, own1, own2, ...statuses] = await Promise.all([
        as('p', ['reserve', `contested-${round}`]),
        as('q', ['reserve', `contested-${round}`]),
        as('p', ['reserve', `own-p-${round}`]),
        as('q', ['reserve', `own-q-${round}`]),
        ...Array.from({ length: STATUSES }, (_, i) => as(i % 2 ? 'p' : 'q', ['status'])),
      ]);
      const all: AbcdRun[] = [p!, q!, own1!, own2!, ...statuses];
      const said = all.map((r) => `${r.code} ${r.stdout.trim()} ${r.stderr.trim()}`).join('\n');
      const refs = await remote.refs();

      // The contested item: exactly one session got it, the other was told who holds it.
      expect([p!.code, q!.code].sort(), said).toEqual([0, 3]);
      const [won, lost] = p!.code === 0 ? [p!, q!] : [q!, p!];
      expect(won.json).toMatchObject({ ok: true, claimTip: refs.get(ref(`contested-${round}`)) });
      expect(lost.json.refusal).toMatchObject({ code: 'held', data: { item: `contested-${round}`, holder: won.json.holder } });
      // The uncontested ones: each reserve says what the remote holds.
      for (const [r, session, item] of [
        [own1!, 'p', `own-p-${round}`],
        [own2!, 'q', `own-q-${round}`],
      ] as const) {
        expect(r.code, said).toBe(0);
        expect(r.json.claimTip).toBe(refs.get(ref(item)));
        expect(r.json.holder).toContain(`/${session}`);
      }
      // The statuses read a consistent remote: the lapsed claims, each still held by its owner.
      for (const st of statuses) {
        expect(st.code, said).toBe(0);
        const claims = st.json.claims as Array<{ item: string; holder: string }>;
        for (const item of STALE) expect(claims.find((c) => c.item === item)?.holder, said).toContain('old');
      }
    }

    // Afterwards, one more status sees exactly what the remote holds.
    const final = await as('p', ['status']);
    expect(final.code).toBe(0);
    const refs = await remote.refs();
    const claimRefs = [...refs.keys()].filter((r) => r.startsWith('refs/heads/abcd/claims/')).sort();
    expect((final.json.claims as Array<{ item: string }>).map((c) => ref(c.item)).sort()).toEqual(claimRefs);
    expect(claimRefs).toHaveLength(STALE.length + 3 * ROUNDS);

    // The shared files: a sighting of every lapsed claim (and of claims a reserve found held),
    // each whole JSON naming the tip the remote has.
    const abcdDir = join(s.dir, '.git', 'abcd');
    const sightings = await readdir(join(abcdDir, 'sightings'));
    expect(
      sightings.filter((f) => f.endsWith('.tmp')),
      'a temp file left behind',
    ).toEqual([]);
    const seen = await Promise.all(sightings.map(async (f) => JSON.parse(await readFile(join(abcdDir, 'sightings', f), 'utf8'))));
    expect(seen.map((v) => v.ref)).toEqual(expect.arrayContaining(STALE.map(ref)));
    expect(new Set(seen.map((v) => v.ref)).size).toBe(seen.length);
    for (const v of seen) {
      expect(v.tip).toBe(refs.get(v.ref));
      expect(typeof v.seenAt).toBe('number');
    }
    // The clone's object store and refs are intact, and no ref lock was left behind.
    await git(s.dir, ['fsck', '--no-dangling', '--no-progress'], s.env);
    const locks = (await git(s.dir, ['for-each-ref', '--format=%(refname)'], s.env)).split('\n').filter((r) => r.endsWith('.lock'));
    expect(locks).toEqual([]);
    const stray = await findFiles(join(s.dir, '.git', 'refs'), (f) => f.endsWith('.lock'));
    expect(stray).toEqual([]);
  }, 300_000);
});

async function findFiles(dir: string, ok: (name: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await findFiles(path, ok)));
    else if (ok(e.name)) out.push(path);
  }
  return out;
}
