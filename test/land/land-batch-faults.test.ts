// Batches under faults (ADR 0097): every answer a land gives agrees with the remote. A member
// that landed as a piece of one (its head refused) says so with the commit that holds its work,
// whatever --strategy it used; several commits of one entry never reach main's first-parent
// line untested; a head killed with -9 holds its members up for its batch lease, not its claim's
// ttl; and the four-session case, run again and again, never answers otherwise than the remote.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git } from '../harness/git-env.js';
import { configuredRemote, type BareRemote } from '../harness/remote.js';
import { killProcessesWith } from '../harness/lanes.js';
import { ABCD_BIN, makeSession, type AbcdRun, type Session } from '../harness/session.js';

const QUEUE = (item: string) => `refs/heads/abcd/queue/local/item/${item}`;
const CLAIM = (item: string) => `refs/heads/abcd/claims/local/item/${item}`;
// Holds until the go file is written (so entries queue behind the one under test), then notes
// the item, HEAD's tree and the base it lands on, and fails on a tree with a bad-*.txt file.
const STARTED = 'echo start >> "$CHECK_LOG.started"; ';
const HELD_CHECK =
  'while [ ! -f "$CHECK_LOG.go" ]; do sleep 0.1; done; sleep 0.5; ' +
  'r=0; if ls bad-*.txt >/dev/null 2>&1; then r=7; fi; ' +
  'echo "$ABCD_LAND_ITEM $(git rev-parse "HEAD^{tree}") $ABCD_LAND_BASE $r" >> "$CHECK_LOG"; exit $r';
// The stress case's check: no holding, only time and the same notes.
const TIMED_CHECK =
  'sleep 0.5; r=0; if ls bad-*.txt >/dev/null 2>&1; then r=7; fi; ' +
  'echo "$ABCD_LAND_ITEM $(git rev-parse "HEAD^{tree}") $ABCD_LAND_BASE $r" >> "$CHECK_LOG"; exit $r';
// How many times the stress test runs the four-session case (once in the suite, to keep it
// fast; ABCD_BATCH_STRESS_RUNS=20 for the real thing), and how many of those at once: two at
// once are eight sessions on the machine, loaded.
const STRESS_RUNS = Number(process.env.ABCD_BATCH_STRESS_RUNS ?? 1);
const STRESS_AT_ONCE = Number(process.env.ABCD_BATCH_STRESS_AT_ONCE ?? 2);

interface Bed {
  remote: BareRemote;
  machine: string;
  log: string;
  env: Record<string, string>;
  /** main's tip before anything landed. */
  start: string;
}

async function bed(land: Record<string, unknown>): Promise<Bed> {
  const config = { land: { sandbox: 'none', env: ['CHECK_LOG'], strategy: 'squash', ...land } };
  const { remote, root, env } = await configuredRemote('land-batch-faults', config);
  const start = (await remote.refs()).get('refs/heads/main')!;
  return { remote, machine: join(root, 'machine'), log: join(root, 'checks.log'), env, start };
}

/** One session per item, each with its work committed on work/<item> (`commits` subjects, one file each). */
async function sessionsFor(b: Bed, items: string[], o: { slots: number; commits?: (item: string) => string[] }): Promise<Session[]> {
  return Promise.all(
    items.map(async (item, i) => {
      const s = await makeSession(b.remote.url, `f${i}`, {
        env: { ABCD_MACHINE_DIR: b.machine, ABCD_GATE_SLOTS: String(o.slots), CHECK_LOG: b.log },
      });
      expect((await s.abcd(['reserve', item])).code).toBe(0);
      await s.git(['checkout', '-q', '-b', `work/${item}`]);
      const file = item.startsWith('bad') ? `bad-${item}.txt` : `${item}.txt`;
      const subjects = o.commits?.(item) ?? [`${item}: ${file}`];
      for (const [k, subject] of subjects.entries()) await s.commit(k === 0 ? file : `${item}-${k}.txt`, `${subject}\n`, subject);
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

const lines = async (path: string) => (await readFile(path, 'utf8').catch(() => '')).split('\n').filter(Boolean);

/** main's first-parent line above where the bed started, newest first: oid, tree, parents. */
async function firstParents(b: Bed) {
  const out = await git(b.remote.dir, ['log', '--first-parent', '--format=%H %T %P', 'main', `^${b.start}`], b.env);
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [oid, tree, ...parents] = l.split(' ');
      return { oid: oid!, tree: tree!, parents };
    });
}

/** Every first-parent commit is a tree some passing check saw, on its first parent. */
async function expectAllTested(b: Bed) {
  const passed = new Set(
    (await lines(b.log))
      .map((l) => l.split(' '))
      .filter((f) => f[3] === '0')
      .map((f) => `${f[1]} ${f[2]}`),
  );
  for (const c of await firstParents(b)) expect(passed.has(`${c.tree} ${c.parents[0]}`), `${c.oid} untested`).toBe(true);
}

async function claimOf(b: Bed, item: string) {
  return JSON.parse(await git(b.remote.dir, ['show', `${CLAIM(item)}:record.json`], b.env));
}

/**
 * What the remote says of one land's answer: a landing answered only with a commit on main's
 * first-parent line whose trailers name the item, which its claim names too, whose tree holds
 * its work; a refusal only for work main does not hold. Nothing of either left in the queue.
 */
async function expectAnswerAgrees(b: Bed, item: string, run: AbcdRun): Promise<void> {
  const refs = await b.remote.refs();
  expect(refs.has(QUEUE(item)), `${item} left in the queue`).toBe(false);
  const tree = await git(b.remote.dir, ['ls-tree', '--name-only', 'main'], b.env);
  const fp = (await firstParents(b)).map((c) => c.oid);
  if (run.code === 0) {
    const tip: string = run.json.tip;
    expect(fp, `${item}: its landed commit is not on main's first-parent line`).toContain(tip);
    const trailers = await git(b.remote.dir, ['log', '-1', '--format=%(trailers:key=Abcd-Item,valueonly)', tip], b.env);
    expect(trailers.split('\n'), `${item}: ${tip} does not name it`).toContain(`local:item:${item}`);
    expect((await claimOf(b, item)).landed.tip).toBe(tip);
    expect(tree).toContain(`${item}.txt`);
    expect(refs.has(`refs/heads/work/${item}`)).toBe(false);
  } else {
    expect(run.code, `${item}: ${run.stdout}${run.stderr}`).toBe(3);
    expect(run.json.refusal.code).toBe('check-failed');
    expect(tree).not.toContain(`bad-${item}.txt`);
    expect((await claimOf(b, item)).state).toBe('held');
  }
}

afterAll(cleanupTemp);

describe('batches under faults', () => {
  it('a member left alone when its head fails answers landed with the commit holding it, under each strategy, and main keeps only tested first parents', async () => {
    const b = await bed({ checks: STARTED + HELD_CHECK, batch: 2 });
    // The plug lands alone first, two commits rebased (they go behind a merge); then each
    // failing entry heads a group of two whose other entry lands as a piece of one.
    const strategies = ['rebase', 'merge', 'squash'] as const;
    const pairs = strategies.flatMap((s) => [`bad-${s}`, `ok-${s}`]);
    const items = ['plug', ...pairs];
    const strategyOf = (item: string) => (item === 'plug' ? 'rebase' : strategies.find((s) => item.endsWith(s))!);
    const sessions = await sessionsFor(b, items, {
      slots: 2,
      commits: (item) => (item === 'plug' || item === 'ok-rebase' ? [`part 1 of ${item}`, `part 2 of ${item}`] : [`${item}: one`]),
    });
    const land = (i: number) =>
      sessions[i]!.abcd(['land', items[i]!, '--strategy', strategyOf(items[i]!), '--json', '--wait', '5m'], { timeoutMs: 400_000 });
    const runs = [land(0)];
    // The plug's check holds the queue while the others queue in order behind it.
    await waitFor(async () => (await lines(`${b.log}.started`)).length >= 1);
    for (let i = 1; i < items.length; i++) {
      runs.push(land(i));
      await waitFor(async () => (await b.remote.refs()).has(QUEUE(items[i]!)));
    }
    await writeFile(`${b.log}.go`, '');
    const done = await Promise.all(runs);
    const by = new Map(items.map((item, i) => [item, done[i]!]));
    for (const item of items)
      expect(by.get(item)!.code, `${item}: ${by.get(item)!.stdout}${by.get(item)!.stderr}`).toBe(item.startsWith('bad') ? 3 : 0);
    for (const item of items) await expectAnswerAgrees(b, item, by.get(item)!);
    const fp = await firstParents(b);
    // One first-parent commit per landed entry: the plug, and each pair's passing entry.
    expect(fp).toHaveLength(4);
    for (const s of strategies) {
      const ok = by.get(`ok-${s}`)!.json;
      expect(ok.batch).toMatchObject({ by: `bad-${s}`, size: 1, landedAs: s === 'squash' ? 'squash' : 'merge' });
      const commit = fp.find((c) => c.oid === ok.tip)!;
      expect(commit.parents).toHaveLength(s === 'squash' ? 1 : 2);
      expect(ok.previousTip).toBe(commit.parents[0]);
    }
    expect(by.get('plug')!.json.batch).toMatchObject({ by: 'plug', size: 1, landedAs: 'merge' });
    // The rebased commits are on main, but only behind the merges, never on the first-parent line.
    const subjects = await git(b.remote.dir, ['log', '--format=%s', 'main', `^${b.start}`], b.env);
    for (const item of ['plug', 'ok-rebase']) for (const p of [1, 2]) expect(subjects).toContain(`part ${p} of ${item}`);
    const fpList = (await git(b.remote.dir, ['rev-list', '--first-parent', 'main', `^${b.start}`], b.env)).split('\n').filter(Boolean);
    const fpSubjects = await Promise.all(fpList.map((c) => git(b.remote.dir, ['log', '-1', '--format=%s', c], b.env)));
    expect(fpSubjects.filter((s) => s.startsWith('part '))).toEqual([]);
    await expectAllTested(b);
    // Started again on its landed claim (as after a kill), a member is told where it landed.
    const again = await sessions[items.indexOf('ok-rebase')]!.abcd(['land', 'ok-rebase', '--json']);
    expect(again.code, again.stdout + again.stderr).toBe(3);
    expect(again.json.refusal.code).toBe('claim-ended');
    expect(again.json.refusal.message).toContain("in bad-rebase's batch (main's history holds it, as a merge)");
  }, 300_000);

  it('a member whose head is killed with -9 under a 5m claim lands within the batch lease, not the ttl', async () => {
    // The plug holds the queue until the go file; the lead's own check holds until go2, so the
    // lead names its member and is killed with its test running. Its claim outlives the test.
    // The marker names the check's shell, so the lead's orphaned checks can be killed with it.
    const marker = `lease-check-${process.pid}-${Date.now()}`;
    const b = await bed({
      checks: `${STARTED}if [ -f lead.txt ]; then while [ ! -f "$CHECK_LOG.go2" ]; do sleep 0.1; done; fi; ${HELD_CHECK} # ${marker}`,
      batch: 2,
    });
    const [plug, head, member] = await sessionsFor(b, ['plug', 'lead', 'member'], { slots: 2 });
    expect((await head!.abcd(['renew', 'lead', '--ttl', '5m'])).code).toBe(0);
    const plugged = plug!.abcd(['land', 'plug', '--json', '--wait', '5m'], { timeoutMs: 150_000 });
    await waitFor(async () => (await lines(`${b.log}.started`)).length >= 1);
    const doomed = execa(process.execPath, [ABCD_BIN, 'land', 'lead', '--json', '--wait', '5m'], {
      cwd: head!.dir,
      env: head!.env,
      extendEnv: false,
      reject: false,
    });
    await waitFor(async () => (await b.remote.refs()).has(QUEUE('lead')));
    const landing = member!.abcd(['land', 'member', '--json', '--wait', '5m'], { timeoutMs: 150_000 });
    await waitFor(async () => (await b.remote.refs()).has(QUEUE('member')));
    await writeFile(`${b.log}.go`, '');
    expect((await plugged).code).toBe(0);
    // The lead names its member under a lease and its check starts: kill it there.
    const named = async () =>
      (await git(b.remote.dir, ['show', `${QUEUE('lead')}:record.json`], b.env).catch(() => '')).includes(QUEUE('member'));
    await waitFor(named);
    await waitFor(async () => (await lines(`${b.log}.started`)).length >= 2);
    doomed.kill('SIGKILL');
    await doomed;
    const killedAt = Date.now();
    // Only the lead's checks run now (its batch's, and its first half's on the spare slot).
    await killProcessesWith(marker);
    const r = await landing;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.batch).toMatchObject({ by: 'member', size: 1 });
    // Its claim's landing generation is stamped by the push that landed it: the lease (15s)
    // and a generous margin for a loaded machine, far below the lead's 5m ttl.
    const landedAt = (await claimOf(b, 'member')).at as number;
    expect(landedAt - killedAt, `landed ${landedAt - killedAt} ms after the kill`).toBeLessThan(15_000 + 45_000);
    await expectAnswerAgrees(b, 'member', r);
    // Nothing of the dead lead landed or was deleted: its claim still holds, its entry waits for it to lapse.
    expect((await claimOf(b, 'lead')).state).toBe('held');
    expect((await b.remote.refs()).has(QUEUE('lead'))).toBe(true);
    const tree = await git(b.remote.dir, ['ls-tree', '--name-only', 'main'], b.env);
    expect(tree).not.toContain('lead.txt');
    await expectAllTested(b);
  }, 150_000);

  it(`four sessions landing at once with the third failing answer as the remote says, ${STRESS_RUNS} times`, async () => {
    const once = async (run: number) => {
      // Rebase, as the sessions landing together used: a piece of one lands behind a merge then.
      const b = await bed({ checks: TIMED_CHECK, batch: 4, strategy: 'rebase' });
      const items = ['s0', 's1', 'bad-s2', 's3'];
      const sessions = await sessionsFor(b, items, { slots: 1 });
      const done = await Promise.all(sessions.map((s, i) => s.abcd(['land', items[i]!, '--json', '--wait', '5m'], { timeoutMs: 400_000 })));
      for (const [i, item] of items.entries()) {
        const r = done[i]!;
        expect(r.code, `run ${run}, ${item}: ${r.stdout}${r.stderr}`).toBe(item.startsWith('bad') ? 3 : 0);
        await expectAnswerAgrees(b, item, r);
      }
      await expectAllTested(b);
    };
    for (let run = 1; run <= STRESS_RUNS; run += STRESS_AT_ONCE) {
      const runs = Array.from({ length: Math.min(STRESS_AT_ONCE, STRESS_RUNS - run + 1) }, (_, k) => run + k);
      await Promise.all(runs.map(once));
    }
  }, 600_000);
});
