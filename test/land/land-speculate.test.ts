// Speculative landing (land.speculate, ADR 0041): the first N live entries test at once, each on
// top of the entries ahead; every commit that lands was tested on exactly its tree and parent.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv } from '../harness/git-env.js';
import { configuredRemote, writeRawRecord, type BareRemote } from '../harness/remote.js';
import { makeSession, type AbcdRun, type Session } from '../harness/session.js';

const ITEMS = ['item-0', 'item-1', 'item-2', 'item-3', 'item-4'];
// Each check appends what it saw: item, HEAD, HEAD's tree, HEAD's parent, its exit code.
const RECORD = 'echo "$ABCD_LAND_ITEM $(git rev-parse HEAD "HEAD^{tree}" "HEAD^" | tr "\\n" " ")$r" >> "$CHECK_LOG"';
// Every check holds until all five entries are queued (the test then writes the go file), so
// however slowly a loaded machine starts the lands, the entries behind test while those ahead
// are still queued: on a stack.
const CHECK =
  'while [ ! -f "$CHECK_LOG.go" ]; do sleep 0.1; done; ' +
  `r=0; if [ -f slow.txt ]; then touch "$CHECK_LOG.slow"; sleep 5; fi; sleep 1; test ! -f bad.txt || r=7; ${RECORD}; exit $r`;

interface Seen {
  item: string;
  head: string;
  tree: string;
  parent: string;
  code: number;
}

async function speculateRemote(): Promise<{ remote: BareRemote; machine: string; log: string }> {
  const config = { land: { checks: CHECK, speculate: 5, sandbox: 'none', env: ['CHECK_LOG'] } };
  const { remote, root } = await configuredRemote('land-spec', config);
  return { remote, machine: join(root, 'machine'), log: join(root, 'checks.log') };
}

/** Five sessions, each with one item; `files[i]` is the file item i adds. Lands start in queue order. */
async function landStack(r: { remote: BareRemote; machine: string; log: string }, files: string[], during?: () => Promise<void>) {
  const sessions: Session[] = await Promise.all(
    ITEMS.map((_, i) =>
      makeSession(r.remote.url, `spec${i}`, { env: { ABCD_MACHINE_DIR: r.machine, ABCD_GATE_SLOTS: '5', CHECK_LOG: r.log } }),
    ),
  );
  await Promise.all(
    sessions.map(async (s, i) => {
      expect((await s.abcd(['reserve', ITEMS[i]!])).code).toBe(0);
      await s.git(['checkout', '-q', '-b', `work/${ITEMS[i]}`]);
      await s.commit(files[i]!, `${i}\n`, `${ITEMS[i]}: ${files[i]}`);
    }),
  );
  const runs: Promise<AbcdRun>[] = [];
  for (const [i, s] of sessions.entries()) {
    runs.push(s.abcd(['land', ITEMS[i]!, '--json', '--wait', '5m'], { timeoutMs: 400_000 }));
    // The next one enqueues only once this one's entry is on the remote: the queue order is known.
    const entry = `refs/heads/abcd/queue/local/item/${ITEMS[i]}`;
    for (let k = 0; k < 1200 && !(await r.remote.refs()).has(entry); k++) await new Promise((res) => setTimeout(res, 50));
  }
  await writeFile(`${r.log}.go`, '');
  const [done] = await Promise.all([Promise.all(runs), during?.()]);
  const seen: Seen[] = (await readFile(r.log, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => {
      const [item, head, tree, parent, code] = l.split(' ');
      return { item: item!, head: head!, tree: tree!, parent: parent!, code: Number(code) };
    });
  return { sessions, runs: done, seen };
}

/** main's first-parent history after the seed's two commits: [commit, tree, parent, subject]. */
async function landedOnMain(r: { remote: BareRemote }, env: Record<string, string>): Promise<string[][]> {
  const log = await git(r.remote.dir, ['log', '--first-parent', '--reverse', '--format=%H %T %P %s', 'main'], env);
  return log
    .split('\n')
    .slice(2)
    .map((l) => l.split(' '));
}

/** Every landed commit was tested on exactly its tree and parent, and its land says so. */
function expectTestedAsLanded(landed: string[][], seen: Seen[], runs: AbcdRun[]) {
  for (const [commit, tree, parent, subject] of landed) {
    const item = subject!.replace(/:$/, '');
    expect(
      seen.some((s) => s.item === item && s.code === 0 && s.head === commit && s.tree === tree && s.parent === parent),
      `${item} landed untested`,
    ).toBe(true);
    const run = runs[ITEMS.indexOf(item)]!;
    expect(run.json).toMatchObject({ tip: commit, previousTip: parent });
  }
}

describe('land with land.speculate', () => {
  afterAll(cleanupTemp);

  it('one failing check mid-stack of five: the other four land in queue order, each tested on exactly its tree and parent', async () => {
    const r = await speculateRemote();
    const files = ['file-0.txt', 'file-1.txt', 'bad.txt', 'file-3.txt', 'file-4.txt'];
    const { sessions, runs, seen } = await landStack(r, files);
    const bad = runs[2]!;
    expect(bad.code, bad.stdout + bad.stderr).toBe(3);
    expect(bad.json.refusal).toMatchObject({ code: 'check-failed', data: { check: CHECK, exitCode: 7, leftQueue: true } });
    for (const i of [0, 1, 3, 4]) expect(runs[i]!.code, runs[i]!.stdout + runs[i]!.stderr).toBe(0);
    const landed = await landedOnMain(r, sessions[0]!.env);
    expect(landed.map((l) => l[3])).toEqual(['item-0:', 'item-1:', 'item-3:', 'item-4:']);
    expectTestedAsLanded(landed, seen, runs);
    // It speculated: an entry was tested on top of one still in the queue, and the two ahead of
    // the failure were predicted exactly (tested once, never re-tested).
    expect(runs.filter((x) => x.code === 0).some((x) => x.json.speculation?.position > 0)).toBe(true);
    expect(seen.filter((s) => s.item === 'item-0')).toHaveLength(1);
    expect(seen.filter((s) => s.item === 'item-1')).toHaveLength(1);
    const refs = await r.remote.refs();
    expect([...refs.keys()].filter((k) => k.startsWith('refs/heads/abcd/queue/'))).toEqual([]);
  }, 480_000);

  // Once the claim moved, any other land may prune the entry before item-2's own land reads it
  // again: the answer is the same fence either way (CI once saw 'conflict' here).
  it.each([
    ['', false],
    [', and another land prunes its entry', true],
  ])(
    "a takeover of one entry's claim mid-stack%s refuses that entry (exit 5) and lands the rest",
    async (_, pruned) => {
      const r = await speculateRemote();
      const files = ['file-0.txt', 'file-1.txt', 'slow.txt', 'file-3.txt', 'file-4.txt'];
      const takeover = async () => {
        // Once item-2's check runs, another session holds its claim (as after a lapse and takeover).
        for (let k = 0; k < 3000 && !existsSync(`${r.log}.slow`); k++) await new Promise((res) => setTimeout(res, 50));
        await writeRawRecord(
          r.remote.dir,
          'refs/heads/abcd/claims/local/item/item-2',
          JSON.stringify({
            abcd: 'claim',
            v: 1,
            item: 'local:item:item-2',
            state: 'held',
            holder: { person: 'bo@example.com', host: 'h', session: 'bo' },
            gen: 99,
            at: Date.now(),
            ttl: 3_600_000,
          }),
        );
        if (pruned) await git(r.remote.dir, ['update-ref', '-d', 'refs/heads/abcd/queue/local/item/item-2'], isolatedEnv(r.remote.dir));
      };
      const { sessions, runs, seen } = await landStack(r, files, takeover);
      expect(existsSync(`${r.log}.slow`)).toBe(true);
      const taken = runs[2]!;
      expect(taken.code, taken.stdout + taken.stderr).toBe(5);
      expect(taken.json.refusal).toMatchObject({ code: 'fenced', data: { item: 'item-2' } });
      for (const i of [0, 1, 3, 4]) expect(runs[i]!.code, runs[i]!.stdout + runs[i]!.stderr).toBe(0);
      const landed = await landedOnMain(r, sessions[0]!.env);
      expect(landed.map((l) => l[3])).toEqual(['item-0:', 'item-1:', 'item-3:', 'item-4:']);
      expectTestedAsLanded(landed, seen, runs);
      expect(runs.filter((x) => x.code === 0).some((x) => x.json.speculation?.position > 0)).toBe(true);
      // The fenced entry's branch is the new holder's business now: left as it was.
      expect((await r.remote.refs()).has('refs/heads/work/item-2')).toBe(true);
    },
    480_000,
  );
});
