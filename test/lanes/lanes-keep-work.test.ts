// No paid work thrown away: a lane's work is on the remote (its work branch, fenced by the
// claim) before it lands; a land that conflicts or a check that fails goes back to the same
// agent for another turn; when it still cannot land, the result names the branch holding it.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { itemStatus, laneSession, remoteWithItems, laneRun } from '../harness/lanes.js';
import type { BareRemote } from '../harness/remote.js';
import { ABCD_BIN } from '../harness/session.js';

type Cycle = {
  item: string;
  outcome: string;
  code?: string;
  reason?: string;
  kept?: { branch: string; head: string };
  resumed?: { conflict: number; check: number };
};

const laneRefs = async (remote: BareRemote) => [...(await remote.refs()).keys()].filter((r) => r.startsWith('refs/heads/lane/'));
const show = async (remote: BareRemote, rev: string) =>
  String((await execa('git', ['-C', remote.dir, 'show', rev], { reject: false })).stdout);

/** Puts `shared.txt` on main: the line both agents edit. */
async function withSharedLine(remote: BareRemote): Promise<void> {
  const seed = await laneSession(remote, 'seed');
  await seed.commit('shared.txt', 'the original line\n');
  await seed.git(['push', '-q', 'origin', 'HEAD:main']);
}

/**
 * Both agents replace the same line of shared.txt; `two` starts editing only once `one` is on
 * main (the test says so through a folder the sandbox shows read-only). On a conflict turn it
 * checks what the prompt says, keeps both lines and commits.
 */
function sameLineAgent(gate: string, resolves = true): string {
  return [
    // An agent that does not resolve: it exits 0 on its conflict turn, leaving the markers.
    resolves ? 'if [ "$ABCD_TURN_KIND" = conflict ]; then' : 'if [ "$ABCD_TURN_KIND" = conflict ]; then exit 0; fi; if false; then',
    '  grep -q "^abcd-resume v1 conflict" "$ABCD_PROMPT" && grep -q "^  shared.txt$" "$ABCD_PROMPT" || exit 3',
    '  grep -v -e "^<<<<<<< " -e "^=======$" -e "^>>>>>>> " shared.txt > ../resolved && mv ../resolved shared.txt',
    '  git add -A && git commit -q --no-edit; exit 0',
    'fi',
    `case "$ABCD_ITEM" in *two) i=0; while [ ! -f ${gate}/go ] && [ $i -lt 900 ]; do sleep 0.1; i=$((i+1)); done;; esac`,
    'echo "line by $ABCD_ITEM" > shared.txt; git add shared.txt && git commit -qm "agent: $ABCD_ITEM"',
  ].join('\n');
}

/** Runs a two-lane drain of `one` and `two` and opens the gate once `one` has landed. */
async function drainSameLine(maxCycles: number, resolves = true) {
  const gate = await tempDir('same-line-gate');
  const remote = await remoteWithItems([{ slug: 'one' }, { slug: 'two' }], { land: { checks: '' }, lanes: { bind: [gate] } });
  await withSharedLine(remote);
  const s = await laneSession(remote, 'drainer');
  const run = s.abcd(
    ['drain', '--lanes', '2', '--lifecycle', 'once', '--max-cycles', String(maxCycles), '--json', '--agent', sameLineAgent(gate, resolves)],
    {
      timeoutMs: 150_000,
    },
  );
  let done = false;
  void run.finally(() => (done = true));
  while (!done && !(await show(remote, 'main:shared.txt')).includes('line by local:item:one')) await new Promise((r) => setTimeout(r, 100));
  await writeFile(join(gate, 'go'), '');
  const r = await run;
  const cycles = (laneRun(r)?.record?.cycles ?? []) as Cycle[];
  return { remote, r, cycles, two: cycles.find((c) => c.item === 'two') };
}

describe('a lane keeps its work', () => {
  afterAll(cleanupTemp);

  it('two lanes edit the same line: the second agent resolves the conflict on the new main, both land, no branch is left', async () => {
    const { remote, r, cycles, two } = await drainSameLine(3);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(cycles.map((c) => [c.item, c.outcome]).sort()).toEqual([
      ['one', 'landed'],
      ['two', 'landed'],
    ]);
    expect(two?.resumed).toEqual({ conflict: 1, check: 0 });
    expect(two?.kept).toBeUndefined();
    const shared = await show(remote, 'main:shared.txt');
    expect(shared.split('\n').filter(Boolean).sort()).toEqual(['line by local:item:one', 'line by local:item:two']);
    expect(await itemStatus(remote, 'one')).toBe('done');
    expect(await itemStatus(remote, 'two')).toBe('done');
    expect(await laneRefs(remote)).toEqual([]);
  }, 180_000);

  it('with no turn left to resolve it, the result names the pushed branch that holds the work', async () => {
    const { remote, two } = await drainSameLine(1);
    expect(two).toMatchObject({ outcome: 'failed', code: 'conflict', kept: { branch: expect.stringMatching(/^lane\/local-item-two\//) } });
    expect(two!.reason).toMatch(/shared\.txt/);
    expect(two!.reason).toContain(two!.kept!.branch);
    const refs = await remote.refs();
    expect(refs.get(`refs/heads/${two!.kept!.branch}`)).toBe(two!.kept!.head);
    expect(await show(remote, `${two!.kept!.head}:shared.txt`)).toBe('line by local:item:two');
    expect(await itemStatus(remote, 'two')).toBe('ready');
  }, 180_000);

  it('an agent that leaves the conflict markers: nothing of them lands, and the work before the turn stays on its branch', async () => {
    const { remote, two } = await drainSameLine(3, false);
    expect(two).toMatchObject({ outcome: 'failed', code: 'conflict', resumed: { conflict: 1, check: 0 } });
    expect(two!.reason).toMatch(/conflict markers in shared\.txt/);
    expect((await remote.refs()).get(`refs/heads/${two!.kept!.branch}`)).toBe(two!.kept!.head);
    expect(await show(remote, `${two!.kept!.head}:shared.txt`)).toBe('line by local:item:two');
    expect(await show(remote, 'main:shared.txt')).toBe('line by local:item:one');
  }, 180_000);

  // The check says what is missing; on its turn the agent reads that from the prompt and fixes it.
  const CHECK = 'grep -q ok fixed.txt 2>/dev/null || { echo "CHECK-SAYS: write ok into fixed.txt"; exit 1; }';
  const FIXING_AGENT = [
    'if [ "$ABCD_TURN_KIND" = check ]; then',
    '  grep -q "^| CHECK-SAYS: write ok into fixed.txt" "$ABCD_PROMPT" || exit 3',
    '  echo \'{"tokens":50}\' >> "$ABCD_USAGE"',
    '  echo ok > fixed.txt; git add fixed.txt && git commit -qm "agent: fix the check"; exit 0',
    'fi',
    'echo \'{"tokens":100}\' >> "$ABCD_USAGE"',
    'echo work > work.txt; git add work.txt && git commit -qm "agent: $ABCD_ITEM"',
  ].join('\n');

  it('a check that fails once: the agent gets its output, fixes the work, and the item lands', async () => {
    const remote = await remoteWithItems([{ slug: 'checked' }], { land: { checks: CHECK } });
    const s = await laneSession(remote, 'builder');
    const r = await s.abcd(['build', 'checked', '--json', '--agent', FIXING_AGENT], { timeoutMs: 120_000 });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [cycle] = laneRun(r).record.cycles as Cycle[];
    expect(cycle).toMatchObject({ outcome: 'landed', resumed: { conflict: 0, check: 1 }, usage: 150 });
    // Both turns are debited from the pool: the first before the land, the fixing turn after it.
    const pool = JSON.parse(await readFile(join(s.env.ABCD_MACHINE_DIR!, 'budget/budget.json'), 'utf8')) as { spent: number };
    expect(pool.spent).toBe(150);
    expect(await show(remote, 'main:fixed.txt')).toBe('ok');
    expect(await show(remote, 'main:work.txt')).toBe('work');
    expect(await itemStatus(remote, 'checked')).toBe('done');
    expect(await laneRefs(remote)).toEqual([]);
  }, 150_000);

  it('lanes.fixChecks 0: a failing check ends the cycle, and the work stays on the branch the result names', async () => {
    const remote = await remoteWithItems([{ slug: 'unfixed' }], { land: { checks: CHECK }, lanes: { fixChecks: 0 } });
    const s = await laneSession(remote, 'builder');
    const r = await s.abcd(['build', 'unfixed', '--json', '--agent', FIXING_AGENT], { timeoutMs: 120_000 });
    const [cycle] = laneRun(r).record.cycles as Cycle[];
    expect(cycle).toMatchObject({ outcome: 'failed', code: 'check-failed', kept: { branch: expect.stringMatching(/^lane\//) } });
    expect(cycle!.resumed).toBeUndefined();
    expect((await remote.refs()).get(`refs/heads/${cycle!.kept!.branch}`)).toBe(cycle!.kept!.head);
    expect(await show(remote, `${cycle!.kept!.head}:work.txt`)).toBe('work');
  }, 150_000);

  it('kill -9 of the lane after the agent finished, before its land was accepted: the work is on the remote; the next landing removes the branch', async () => {
    const remote = await remoteWithItems([{ slug: 'killed' }], { land: { checks: '' } });
    // The remote holds back the land's first push (the one with the queue entry) until told,
    // then refuses it: the lane is killed while it waits there.
    const sig = await tempDir('kill-hook');
    const hook = join(remote.dir, 'hooks', 'pre-receive');
    await writeFile(
      hook,
      [
        '#!/bin/sh',
        'while read old new ref; do',
        '  case "$ref" in refs/heads/abcd/queue/*)',
        `    touch ${sig}/queued; i=0; while [ ! -f ${sig}/release ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; exit 1;;`,
        '  esac',
        'done',
        'exit 0',
      ].join('\n'),
    );
    await chmod(hook, 0o755);
    const s = await laneSession(remote, 'victim');
    const agent = 'echo paid > paid.txt; git add paid.txt && git commit -qm "agent: paid work"';
    const child = execa(process.execPath, [ABCD_BIN, 'build', 'killed', '--json', '--agent', agent], {
      cwd: s.dir,
      env: s.env,
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    });
    const queued = join(sig, 'queued');
    for (
      let i = 0;
      i < 1200 &&
      !(await readFile(queued).then(
        () => true,
        () => false,
      ));
      i++
    )
      await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGKILL');
    await child;
    await writeFile(join(sig, 'release'), '');
    const refs = await remote.refs();
    const kept = [...refs.keys()].filter((r) => r.startsWith('refs/heads/lane/local-item-killed/'));
    expect(kept).toHaveLength(1);
    expect(await show(remote, `${refs.get(kept[0]!)}:paid.txt`)).toBe('paid');
    // The dead lane's claim names that branch and head.
    const claimRef = 'refs/heads/abcd/claims/local/item/killed';
    const file = String((await execa('git', ['-C', remote.dir, 'ls-tree', '--name-only', claimRef])).stdout).trim();
    const claim = JSON.parse(await show(remote, `${claimRef}:${file}`));
    expect(claim).toMatchObject({ state: 'held', branch: kept[0]!.slice('refs/heads/'.length), head: refs.get(kept[0]!) });

    // The person clears the dead claim; the next lane lands the item and removes the kept branch.
    await writeFile(hook, '#!/bin/sh\nexit 0\n');
    const cleared = await s.abcd(['release', 'killed', '--force', '--json']);
    expect(cleared.code, cleared.stdout + cleared.stderr).toBe(0);
    const again = await s.abcd(['build', 'killed', '--json', '--agent', agent], { timeoutMs: 120_000 });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await laneRefs(remote)).toEqual([]);
    expect(await show(remote, 'main:paid.txt')).toBe('paid');
  }, 180_000);
});
