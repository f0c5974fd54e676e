// Batches (land.batch, ADR 0096): the head of the queue tests up to N live entries as one stack;
// a passing batch lands as one merge commit, a failing one is split until the failing entries
// are found, and every first-parent commit of main was tested on exactly its tree and parent.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git } from '../harness/git-env.js';
import { configuredRemote, writeRawRecord, type BareRemote } from '../harness/remote.js';
import { ABCD_BIN, makeSession, type AbcdRun, type Session } from '../harness/session.js';

const PLUG = 'item-0';
const BATCH = ['item-1', 'item-2', 'item-3', 'item-4'];
const QUEUE = (item: string) => `refs/heads/abcd/queue/local/item/${item}`;
const CLAIM = (item: string) => `refs/heads/abcd/claims/local/item/${item}`;
// Each check notes that it started, holds until the test writes the go file (so the plug at the
// head of the queue keeps testing until the batch behind it is queued), and then appends what it
// saw: the item, HEAD, HEAD's tree, the main commit it lands on, its exit code.
const CHECK =
  'echo start >> "$CHECK_LOG.started"; while [ ! -f "$CHECK_LOG.go" ]; do sleep 0.1; done; sleep 1; ' +
  'r=0; if ls bad-*.txt >/dev/null 2>&1; then echo "BAD-MARKER $(ls bad-*.txt)"; r=7; fi; ' +
  'echo "$ABCD_LAND_ITEM $(git rev-parse HEAD "HEAD^{tree}" | tr "\\n" " ")$ABCD_LAND_BASE $r" >> "$CHECK_LOG"; exit $r';

interface Seen {
  item: string;
  head: string;
  tree: string;
  base: string;
  code: number;
}

interface Bed {
  remote: BareRemote;
  machine: string;
  log: string;
  env: Record<string, string>;
}

async function batchRemote(land: Record<string, unknown> = {}): Promise<Bed> {
  const config = { land: { checks: CHECK, batch: 4, sandbox: 'none', env: ['CHECK_LOG'], strategy: 'squash', ...land } };
  const { remote, root, env } = await configuredRemote('land-batch', config);
  return { remote, machine: join(root, 'machine'), log: join(root, 'checks.log'), env };
}

async function sessionsFor(bed: Bed, items: string[], files: (item: string) => string): Promise<Session[]> {
  return Promise.all(
    items.map(async (item, i) => {
      const s = await makeSession(bed.remote.url, `b${i}`, {
        env: { ABCD_MACHINE_DIR: bed.machine, ABCD_GATE_SLOTS: '2', CHECK_LOG: bed.log },
      });
      expect((await s.abcd(['reserve', item])).code).toBe(0);
      await s.git(['checkout', '-q', '-b', `work/${item}`]);
      await s.commit(files(item), `${item}\n`, `${item}: ${files(item)}`);
      return s;
    }),
  );
}

async function waitFor(what: () => Promise<boolean>, ms = 120_000): Promise<void> {
  for (const t0 = Date.now(); Date.now() - t0 < ms;) {
    if (await what()) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error('timed out waiting');
}

async function seen(bed: Bed): Promise<Seen[]> {
  return (await readFile(bed.log, 'utf8'))
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [item, head, tree, base, code] = l.split(' ');
      return { item: item!, head: head!, tree: tree!, base: base!, code: Number(code) };
    });
}

/** main's first-parent history above the configuring commit: oid, tree, first parent, all parents. */
async function firstParents(bed: Bed) {
  const out = await git(bed.remote.dir, ['log', '--first-parent', '--format=%H %T %P', 'main'], bed.env);
  return out
    .trim()
    .split('\n')
    .map((l) => {
      const [oid, tree, ...parents] = l.split(' ');
      return { oid: oid!, tree: tree!, parents };
    })
    .slice(0, -2);
}

/** Every first-parent commit some passing check saw: its tree, on its first parent. */
async function expectAllTested(bed: Bed) {
  const passed = new Set((await seen(bed)).filter((s) => s.code === 0).map((s) => `${s.tree} ${s.base}`));
  for (const c of await firstParents(bed)) expect(passed.has(`${c.tree} ${c.parents[0]}`), `${c.oid} untested`).toBe(true);
}

async function claimOf(bed: Bed, item: string) {
  return JSON.parse(await git(bed.remote.dir, ['show', `${CLAIM(item)}:record.json`], bed.env));
}

async function landAll(bed: Bed, sessions: Session[], items: string[]): Promise<AbcdRun[]> {
  const runs: Promise<AbcdRun>[] = [];
  for (const [i, s] of sessions.entries()) {
    runs.push(s.abcd(['land', items[i]!, '--json', '--wait', '5m'], { timeoutMs: 400_000 }));
    await waitFor(async () => (await bed.remote.refs()).has(QUEUE(items[i]!)));
  }
  await writeFile(`${bed.log}.go`, '');
  return Promise.all(runs);
}

afterAll(cleanupTemp);

describe('land.batch', () => {
  it('tests four entries in one check run and lands them as one merge commit on the old main', async () => {
    const bed = await batchRemote();
    const items = [PLUG, ...BATCH];
    const sessions = await sessionsFor(bed, items, (item) => `${item}.txt`);
    const before = (await bed.remote.refs()).get('refs/heads/main')!;
    const runs = await landAll(bed, sessions, items);
    for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(0);
    const [plug, head, ...followers] = runs as [AbcdRun, AbcdRun, ...AbcdRun[]];
    expect(plug.json.previousTip).toBe(before);
    expect(head.json.batch).toEqual({ by: 'item-1', size: 4, rounds: 1, landedAs: 'merge' });
    for (const f of followers) expect(f.json.batch).toEqual({ by: 'item-1', size: 4, landedAs: 'merge' });
    // One check run for the plug, one for the batch of four.
    const checks = await seen(bed);
    expect(checks.map((c) => c.item)).toEqual([PLUG, 'item-1']);
    const [merge, plugCommit] = await firstParents(bed);
    expect(merge!.parents).toHaveLength(2);
    expect(merge!.parents[0]).toBe(plugCommit!.oid);
    expect(merge!.parents[1]).toBe(checks[1]!.head);
    expect(merge!.tree).toBe(checks[1]!.tree);
    await expectAllTested(bed);
    // The four squash commits are on the merge's second parent, oldest first, each the item's one commit.
    const second = (await git(bed.remote.dir, ['log', '--format=%s', `${merge!.parents[0]}..${merge!.parents[1]}`], bed.env)).split('\n');
    expect(second.reverse()).toEqual(BATCH.map((i) => `${i}: ${i}.txt`).map((s) => expect.stringContaining(s.split(':')[0]!)));
    const refs = await bed.remote.refs();
    for (const item of BATCH) {
      expect(refs.has(QUEUE(item))).toBe(false);
      expect(refs.has(`refs/heads/work/${item}`)).toBe(false);
      const c = await claimOf(bed, item);
      expect(c).toMatchObject({ state: 'done', landed: { tip: merge!.oid, batch: { by: 'item-1', size: 4 } } });
    }
  }, 300_000);

  for (const bad of ['item-1', 'item-3']) {
    it(`a batch of 4 whose ${bad} fails lands the other 3 and refuses ${bad} with its output, in at most 3 check rounds`, async () => {
      const bed = await batchRemote();
      const items = [PLUG, ...BATCH];
      const sessions = await sessionsFor(bed, items, (item) => (item === bad ? `bad-${item}.txt` : `${item}.txt`));
      const runs = await landAll(bed, sessions, items);
      const by = new Map(items.map((item, i) => [item, runs[i]!]));
      const refused = by.get(bad)!;
      expect(refused.code, refused.stdout).toBe(3);
      expect(refused.json.refusal).toMatchObject({ code: 'check-failed', data: { exitCode: 7, leftQueue: true } });
      expect(refused.json.refusal.data.output).toContain(`BAD-MARKER bad-${bad}.txt`);
      for (const item of items.filter((i) => i !== bad)) expect(by.get(item)!.code, by.get(item)!.stdout).toBe(0);
      // The head reports the rounds; the log agrees: the plug's run, then at most two runs a round.
      const head = by.get('item-1')!;
      const rounds = bad === 'item-1' ? undefined : head.json.batch.rounds;
      // The batch's round and at least one more to find it; two with a spare slot beside the first.
      if (rounds !== undefined) expect(rounds).toBeGreaterThanOrEqual(2);
      if (rounds !== undefined) expect(rounds).toBeLessThanOrEqual(3);
      const checks = await seen(bed);
      // At most 5 runs for one settling; a loaded machine can make the head form its batch once
      // more (seen once in a fresh-clone run at 10), which repeats only the passing runs.
      expect(checks.length - 1).toBeLessThanOrEqual(2 * (1 + 2 * 2));
      await expectAllTested(bed);
      const refs = await bed.remote.refs();
      for (const item of items) expect(refs.has(QUEUE(item)), item).toBe(false);
      const tree = await git(bed.remote.dir, ['ls-tree', '--name-only', 'main'], bed.env);
      for (const item of items) expect(tree.includes(`${item}.txt`), item).toBe(item !== bad);
      expect(tree).not.toContain('bad-');
      const c = await claimOf(bed, bad);
      expect(c.state).toBe('held');
    }, 300_000);
  }

  it('kill -9 of the head in the middle of a bisection lands nothing twice and nothing untested', async () => {
    const bed = await batchRemote();
    const items = [PLUG, ...BATCH];
    const bad = 'item-3';
    const sessions = await sessionsFor(bed, items, (item) => (item === bad ? `bad-${item}.txt` : `${item}.txt`));
    // The head's claim lapses soon after it dies, so the others take their turn again within the test.
    const [, head] = sessions as [Session, Session];
    expect((await head.abcd(['renew', 'item-1', '--ttl', '6s'])).code).toBe(0);
    expect((await head.abcd(['settings', 'takeover-delay', '500ms'])).code).toBe(0);
    const { execa } = await import('execa');
    const runs: (Promise<AbcdRun> | undefined)[] = [];
    let killed: ReturnType<typeof execa> | undefined;
    for (const [i, s] of sessions.entries()) {
      if (i === 1) {
        killed = execa(process.execPath, [ABCD_BIN, 'land', 'item-1', '--json', '--wait', '5m'], {
          cwd: s.dir,
          env: s.env,
          extendEnv: false,
          reject: false,
        });
        runs.push(undefined);
      } else runs.push(s.abcd(['land', items[i]!, '--json', '--wait', '5m'], { timeoutMs: 400_000 }));
      await waitFor(async () => (await bed.remote.refs()).has(QUEUE(items[i]!)));
    }
    const mainBefore = async () => (await bed.remote.refs()).get('refs/heads/main');
    await writeFile(`${bed.log}.go`, '');
    // The plug's run, the batch's run and its first half's beside it, then the next bisection round starting: kill the head then.
    await waitFor(async () => (await readFile(`${bed.log}.started`, 'utf8').catch(() => '')).split('\n').filter(Boolean).length >= 4);
    const atKill = await mainBefore();
    killed!.kill('SIGKILL');
    await killed;
    const done = await Promise.all(runs.filter((r): r is Promise<AbcdRun> => r !== undefined));
    const by = new Map(items.filter((i) => i !== 'item-1').map((item, k) => [item, done[k]!]));
    expect(by.get(bad)!.code, by.get(bad)!.stdout).toBe(3);
    for (const item of ['item-2', 'item-4']) expect(by.get(item)!.code, by.get(item)!.stdout).toBe(0);
    // The killed head landed nothing: main moved only by the plug before it, then by the re-formed batch.
    const fp = await firstParents(bed);
    expect(fp.some((c) => c.oid === atKill)).toBe(true);
    await expectAllTested(bed);
    for (const item of items) {
      const touched = (await git(bed.remote.dir, ['log', '--format=%H', 'main', '--', `${item}.txt`], bed.env)).split('\n').filter(Boolean);
      expect(touched.length, item).toBe(item === 'item-1' || item === bad ? 0 : 1);
    }
    expect((await claimOf(bed, 'item-1')).state).toBe('held');
  }, 300_000);

  it('a claim a stranger marks done in a made-up batch is not taken for a landing', async () => {
    const bed = await batchRemote();
    const items = [PLUG, 'item-1', 'item-2'];
    const sessions = await sessionsFor(bed, items, (item) => `${item}.txt`);
    const runs: Promise<AbcdRun>[] = [];
    for (const [i, s] of sessions.entries()) {
      runs.push(s.abcd(['land', items[i]!, '--json', '--wait', '5m'], { timeoutMs: 400_000 }));
      await waitFor(async () => (await bed.remote.refs()).has(QUEUE(items[i]!)));
    }
    // While the plug's check holds the queue, someone with push access writes item-2's claim as
    // landed in item-1's batch, pointing at main's tip: a commit that does not land item-2.
    const main = (await bed.remote.refs()).get('refs/heads/main')!;
    const claim = await claimOf(bed, 'item-2');
    const forged = { ...claim, gen: claim.gen + 1, state: 'done', landed: { main: 'main', tip: main, batch: { by: 'item-1', size: 2 } } };
    await writeRawRecord(bed.remote.dir, CLAIM('item-2'), JSON.stringify(forged));
    const [plug, one, two] = (await Promise.all([
      ...runs.slice(0, 2),
      runs[2]!.then(async (r) => (await writeFile(`${bed.log}.go`, ''), r)),
    ])) as [AbcdRun, AbcdRun, AbcdRun];
    expect(two.code, two.stdout).toBe(5);
    expect(two.json.refusal).toMatchObject({ code: 'fenced', data: { item: 'item-2', state: 'done' } });
    expect(two.json.refusal.message).toContain('main does not hold a landing of it');
    expect(plug.code).toBe(0);
    expect(one.code, one.stdout).toBe(0);
    const tree = await git(bed.remote.dir, ['ls-tree', '--name-only', 'main'], bed.env);
    expect(tree).not.toContain('item-2.txt');
  }, 300_000);

  it('with land.speculate 2 the second batch tests on the merge the first will land, and lands on it with no test again', async () => {
    // Each head waits for its second entry: the batches are item-0 and 1, then item-2 and 3.
    const bed = await batchRemote({ batch: 2, speculate: 2, batchWait: '60s' });
    const items = [PLUG, 'item-1', 'item-2', 'item-3'];
    const sessions = await sessionsFor(bed, items, (item) => `${item}.txt`);
    const runs = await landAll(bed, sessions, items);
    for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(0);
    const [zero, , two] = runs as [AbcdRun, AbcdRun, AbcdRun, AbcdRun];
    expect(zero.json.batch).toEqual({ by: PLUG, size: 2, rounds: 1, landedAs: 'merge' });
    expect(two.json.batch).toEqual({ by: 'item-2', size: 2, rounds: 1, landedAs: 'merge' });
    // Two check runs in all, one a batch; the second ran on the first's merge before it landed.
    const checks = await seen(bed);
    expect(checks.map((c) => c.item).sort()).toEqual([PLUG, 'item-2']);
    const [second, first] = await firstParents(bed);
    expect(first!.parents).toHaveLength(2);
    expect(second!.parents[0]).toBe(first!.oid);
    expect(checks.find((c) => c.item === 'item-2')!.base).toBe(first!.oid);
    await expectAllTested(bed);
  }, 300_000);

  it('a high-priority entry enqueued while a batch is under test neither joins nor reorders it', async () => {
    // The batch's check also holds until the go2 file: the high entry enqueues meanwhile.
    const bed = await batchRemote({
      checks: `if [ -f item-4.txt ]; then while [ ! -f "$CHECK_LOG.go2" ]; do sleep 0.1; done; fi; ${CHECK}`,
    });
    const items = [PLUG, ...BATCH];
    const sessions = await sessionsFor(bed, [...items, 'urgent'], (item) => `${item}.txt`);
    const urgent = sessions.pop()!;
    const landing = landAll(bed, sessions, items);
    await waitFor(async () => (await readFile(`${bed.log}`, 'utf8').catch(() => '')).includes(PLUG));
    // The batch of four is named and its test has started.
    await waitFor(async () => (await readFile(`${bed.log}.started`, 'utf8').catch(() => '')).split('\n').filter(Boolean).length >= 2);
    // Its head names the members while the checks start: wait for the record to say so.
    const named = async () =>
      (await git(bed.remote.dir, ['show', `${QUEUE('item-1')}:record.json`], bed.env).catch(() => '')).includes('"batch"');
    await waitFor(named);
    const high = urgent.abcd(['land', 'urgent', '--priority', 'high', '--json', '--wait', '5m'], { timeoutMs: 400_000 });
    await waitFor(async () => (await bed.remote.refs()).has(QUEUE('urgent')));
    // Status shows the batch under test and the high entry outside it.
    const status = await urgent.abcd(['status', '--json']);
    const queue = new Map<string, { batch?: unknown; priority: string }>(status.json.queue.map((q: { item: string }) => [q.item, q]));
    expect(queue.get('item-1')!.batch).toEqual({ of: 'item-1', head: true });
    for (const item of ['item-2', 'item-3', 'item-4']) expect(queue.get(item)!.batch).toEqual({ of: 'item-1', head: false });
    expect(queue.get('urgent')).toMatchObject({ priority: 'high' });
    expect(queue.get('urgent')!.batch).toBeUndefined();
    expect((await urgent.abcd(['status'])).stdout).toContain("in item-1's batch");
    await writeFile(`${bed.log}.go2`, '');
    const [runs, u] = await Promise.all([landing, high]);
    for (const r of [...runs, u]) expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(runs[1]!.json.batch).toEqual({ by: 'item-1', size: 4, rounds: 1, landedAs: 'merge' });
    const [last, merge] = await firstParents(bed);
    // The batch landed as it was tested, then the high entry on top of it, tested there.
    expect(merge!.parents).toHaveLength(2);
    expect(last!.parents).toEqual([merge!.oid]);
    expect(u.json.previousTip).toBe(merge!.oid);
    // (A spare slot may have tested the batch's first half beside it: that run landed nothing.)
    const checks = await seen(bed);
    expect(checks.at(-1)!.item).toBe('urgent');
    expect(checks.filter((c) => c.tree === merge!.tree && c.code === 0)).toHaveLength(1);
    await expectAllTested(bed);
  }, 300_000);

  it("status shows an entry a batch's head refused, with the check that failed", async () => {
    const bed = await batchRemote();
    const [s] = await sessionsFor(bed, ['item-9'], (item) => `${item}.txt`);
    await s!.git(['push', '-q', 'origin', 'work/item-9']);
    const claim = await claimOf(bed, 'item-9');
    const head = await s!.git(['rev-parse', 'HEAD']);
    const base = (await bed.remote.refs()).get('refs/heads/main')!;
    const entry = {
      abcd: 'queue',
      v: 1,
      item: 'local:item:item-9',
      holder: claim.holder,
      branch: 'work/item-9',
      head,
      main: 'main',
      strategy: 'squash',
      at: Date.now(),
      verdict: {
        by: 'item-1',
        tested: head,
        base,
        failure: { kind: 'check', check: 'npm test', exitCode: 7, timedOut: false, output: 'boom', attempts: 1 },
      },
    };
    await writeRawRecord(bed.remote.dir, QUEUE('item-9'), JSON.stringify(entry));
    const status = await s!.abcd(['status', '--json']);
    expect(status.json.queue[0]).toMatchObject({
      item: 'item-9',
      alive: false,
      refused: { by: 'item-1', reason: 'check "npm test" exited 7' },
    });
    expect((await s!.abcd(['status'])).stdout).toContain("refused in item-1's batch");
  }, 120_000);
});
