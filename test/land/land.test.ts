// abcd land: a fenced, fair queue onto main with checks on the exact tree that lands.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';
import { makeRemote, writeRawRecord, type BareRemote } from '../harness/remote.js';
import { ABCD_BIN, makeSession, type Session } from '../harness/session.js';
import { assertAnswerContract } from '../harness/answer-contract.js';

// Timers and process exits run late on a loaded machine: what abcd measured may be late by this much.
const LOADED_MACHINE_MS = 3000;

async function landRemote(checks: string): Promise<{ remote: BareRemote; machine: string; log: string }> {
  const remote = await makeRemote();
  const root = await tempDir('land');
  const env = isolatedEnv(root);
  const seed = join(root, 'seed');
  await git(root, ['clone', '-q', remote.url, seed], env);
  await git(seed, ['config', 'commit.gpgsign', 'false'], env);
  await git(seed, ['config', 'user.email', 'owner@example.com'], env);
  const { mkdir, writeFile } = await import('node:fs/promises');
  await mkdir(join(seed, '.abcd'));
  await writeFile(
    join(seed, '.abcd/config.json'),
    JSON.stringify({ land: { checks, sandbox: 'none', env: ['CHECK_LOG', 'CHECK_SLEEP', 'MOVE_REMOTE', 'OTHER', 'MOVES', 'MAX_MOVES'] } }),
  );
  await git(seed, ['add', '.'], env);
  await git(seed, ['commit', '-q', '-m', 'configure land checks'], env);
  await git(seed, ['push', '-q', 'origin', 'main'], env);
  return { remote, machine: join(root, 'machine'), log: join(root, 'checks.log') };
}

async function sessionOn(r: { remote: BareRemote; machine: string; log: string }, name: string, env: Record<string, string> = {}) {
  return makeSession(r.remote.url, name, { env: { ABCD_MACHINE_DIR: r.machine, ABCD_GATE_SLOTS: '2', CHECK_LOG: r.log, ...env } });
}

async function workOn(s: Session, item: string, file: string, content: string): Promise<string> {
  expect((await s.abcd(['reserve', item])).code).toBe(0);
  await s.git(['checkout', '-q', '-b', `work/${item}`]);
  return s.commit(file, content, `${item}: ${file}`);
}

const MAIN = 'refs/heads/main';

describe('land', () => {
  afterAll(cleanupTemp);

  it('five sessions land five items at once: all land, in queue order, each tested on the exact commit', async () => {
    const r = await landRemote('git rev-parse HEAD >> "$CHECK_LOG" && test -z "$(git status --porcelain)"');
    const sessions = await Promise.all([0, 1, 2, 3, 4].map((i) => sessionOn(r, `lander${i}`)));
    await Promise.all(sessions.map((s, i) => workOn(s, `item-${i}`, `file-${i}.txt`, `${i}\n`)));
    const runs = await Promise.all(sessions.map((s, i) => s.abcd(['land', `item-${i}`, '--json', '--wait', '3m'], { timeoutMs: 200_000 })));
    for (const run of runs) expect(run.code, run.stdout + run.stderr).toBe(0);
    const env = sessions[0]!.env;
    const mainTip = (await r.remote.refs()).get(MAIN)!;
    const log = (await git(r.remote.dir, ['log', '--first-parent', '--format=%H %s', mainTip], env)).split('\n').reverse();
    const landed = log.slice(2); // initial, configure
    expect(landed).toHaveLength(5);
    const byQueue = runs
      .map((x) => x.json)
      .sort((a, b) => Date.parse(a.enqueuedAt) - Date.parse(b.enqueuedAt) || (a.item < b.item ? -1 : 1));
    expect(landed.map((l) => l.split(' ')[0])).toEqual(byQueue.map((j) => j.tip));
    const tested = new Set((await readFile(r.log, 'utf8')).trim().split('\n'));
    for (const j of byQueue) expect(tested.has(j.tip), `${j.item} landed ${j.tip} untested`).toBe(true);
    const files = await git(r.remote.dir, ['ls-tree', '--name-only', mainTip], env);
    for (let i = 0; i < 5; i++) expect(files).toContain(`file-${i}.txt`);
    const refs = await r.remote.refs();
    expect([...refs.keys()].filter((k) => k.startsWith('refs/heads/abcd/queue/'))).toEqual([]);
    // Each landed work branch went with its landing.
    expect([...refs.keys()].filter((k) => k.startsWith('refs/heads/work/'))).toEqual([]);
    const status = await sessions[0]!.abcd(['status', '--json']);
    expect(status.json.claims.filter((c: { state: string }) => c.state === 'done')).toHaveLength(5);
  }, 300_000);

  it('two conflicting lands: one lands, the other is refused naming the file, its work branch untouched', async () => {
    const r = await landRemote('true');
    const [a, b] = await Promise.all([sessionOn(r, 'ann'), sessionOn(r, 'ben')]);
    const aHead = await workOn(a, 'readme-a', 'README.md', 'ann was here\n');
    const bHead = await workOn(b, 'readme-b', 'README.md', 'ben was here\n');
    const [ra, rb] = await Promise.all([a.abcd(['land', 'readme-a', '--json']), b.abcd(['land', 'readme-b', '--json'])]);
    const [won, lost, loser] =
      ra.code === 0 ? [ra, rb, { s: b, item: 'readme-b', head: bHead }] : [rb, ra, { s: a, item: 'readme-a', head: aHead }];
    expect(won.code, won.stderr).toBe(0);
    expect(lost.code, lost.stdout).toBe(3);
    expect(lost.json.refusal).toMatchObject({ code: 'conflict', data: { files: ['README.md'] } });
    const refs = await r.remote.refs();
    expect(refs.get(MAIN)).toBe(won.json.tip);
    expect(refs.get(`refs/heads/work/${loser.item}`)).toBe(loser.head);
    expect(await loser.s.git(['rev-parse', `work/${loser.item}`])).toBe(loser.head);
    expect(await loser.s.git(['status', '--porcelain'])).toBe('');
    expect([...refs.keys()].filter((k) => k.startsWith('refs/heads/abcd/queue/'))).toEqual([]);
  }, 120_000);

  it('a holder whose claim was taken over cannot enqueue or land (exit 5); main unchanged', async () => {
    const r = await landRemote('true');
    const [a, b] = await Promise.all([sessionOn(r, 'amy'), sessionOn(r, 'bo')]);
    expect((await a.abcd(['settings', 'takeover-delay', '500ms'])).code).toBe(0);
    expect((await a.abcd(['reserve', 'taken', '--ttl', '1s'])).code).toBe(0);
    await a.git(['checkout', '-q', '-b', 'work/taken']);
    await a.commit('taken.txt', 'amy\n');
    expect((await b.abcd(['reserve', 'taken', '--wait', '20s'])).code).toBe(0);
    const before = await r.remote.refs();
    const run = await a.abcd(['land', 'taken', '--json']);
    expect(run.code, run.stdout).toBe(5);
    expect(run.json.refusal).toMatchObject({ code: 'fenced', data: { item: 'taken' } });
    expect(await r.remote.refs()).toEqual(before);
  }, 120_000);

  it('a check that runs past --wait still lands: the deadline bounds the waits, not the test or the landing push', async () => {
    const r = await landRemote('sleep 4');
    const s = await sessionOn(r, 'eve');
    await workOn(s, 'slow', 'slow.txt', 'takes a while to test\n');
    const run = await s.abcd(['land', 'slow', '--json', '--wait', '2s']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.json.waitedMs).toBeGreaterThan(2000);
    expect((await r.remote.refs()).get(MAIN)).toBe(run.json.tip);
  }, 120_000);

  it("a former holder's stale queue entry pruned under the enqueue's lease: the enqueue leases again and lands", async () => {
    const r = await landRemote('true');
    const s = await sessionOn(r, 'ivy');
    const head = await workOn(s, 'handed', 'handed.txt', 'mine now\n');
    // A former holder's entry for the item, still on the remote when ivy reads the records.
    const qref = 'refs/heads/abcd/queue/local/item/handed';
    const stale = JSON.stringify({
      abcd: 'queue',
      v: 1,
      item: 'local:item:handed',
      holder: { person: 'old@example.com', host: 'gone', session: 'old' },
      branch: 'work/old',
      head,
      main: 'main',
      strategy: 'rebase',
      at: Date.now() - 60_000,
    });
    await writeRawRecord(r.remote.dir, qref, stale);
    // Another reader prunes it after ivy's read and before her push lands: a pre-receive hook
    // deletes it (once) while her push is being received, so her lease on it no longer holds.
    const { writeFile, chmod } = await import('node:fs/promises');
    const hook = join(r.remote.dir, 'hooks', 'pre-receive');
    await writeFile(
      hook,
      `#!/bin/sh\nif grep -q ' ${qref}$' && [ ! -e "$GIT_DIR/pruned-once" ]; then\n  touch "$GIT_DIR/pruned-once"\n  env -u GIT_QUARANTINE_PATH git update-ref -d ${qref}\nfi\nexit 0\n`,
    );
    await chmod(hook, 0o755);
    const run = await s.abcd(['land', 'handed', '--json', '--wait', '30s']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const refs = await r.remote.refs();
    expect(refs.get(MAIN)).toBe(run.json.tip);
    expect(refs.has(qref)).toBe(false);
  }, 120_000);

  it('a failing check lands nothing, names the check and its exit code, and the queue moves on', async () => {
    const r = await landRemote('test ! -f bad.txt || exit 7');
    const [a, b] = await Promise.all([sessionOn(r, 'cat'), sessionOn(r, 'dan')]);
    await workOn(a, 'bad', 'bad.txt', 'breaks the check\n');
    await workOn(b, 'good', 'good.txt', 'fine\n');
    const before = (await r.remote.refs()).get(MAIN);
    const bad = await a.abcd(['land', 'bad', '--json']);
    expect(bad.code).toBe(3);
    expect(bad.json.refusal).toMatchObject({ code: 'check-failed', data: { check: 'test ! -f bad.txt || exit 7', exitCode: 7 } });
    const refs = await r.remote.refs();
    expect(refs.get(MAIN)).toBe(before);
    expect(refs.has('refs/heads/abcd/queue/local/item/bad')).toBe(false);
    const good = await b.abcd(['land', 'good', '--json', '--wait', '20s']);
    expect(good.code, good.stdout).toBe(0);
    expect((await r.remote.refs()).get(MAIN)).toBe(good.json.tip);
  }, 120_000);

  it('a dead queue head (claim expired) does not block the entries behind it', async () => {
    const r = await landRemote('true');
    const b = await sessionOn(r, 'eve');
    const ghost = { person: 'ghost@example.com', host: 'gone', session: 'ghost' };
    const long = Date.now() - 3_600_000;
    await writeRawRecord(
      r.remote.dir,
      'refs/heads/abcd/claims/local/item/ghost',
      JSON.stringify({
        abcd: 'claim',
        v: 1,
        item: 'local:item:ghost',
        state: 'held',
        holder: ghost,
        gen: 0,
        at: long,
        ttl: 60_000,
      }),
    );
    await writeRawRecord(
      r.remote.dir,
      'refs/heads/abcd/queue/local/item/ghost',
      JSON.stringify({
        abcd: 'queue',
        v: 1,
        item: 'local:item:ghost',
        holder: ghost,
        branch: 'work/ghost',
        head: 'a'.repeat(40),
        main: 'main',
        strategy: 'rebase',
        at: long,
      }),
    );
    // A clock that is never measured cannot tell an hour-old claim from a clock an hour fast: the
    // entry is deleted once this clone measured its clock (another session's claim appearing
    // between two of its reads) and watched the ghost's claim for the takeover delay.
    expect((await b.abcd(['settings', 'takeover-delay', '500ms'])).code).toBe(0);
    expect((await b.abcd(['status', '--json'])).code).toBe(0);
    expect((await (await sessionOn(r, 'eli')).abcd(['reserve', 'elsewhere'])).code).toBe(0);
    await new Promise((res) => setTimeout(res, 600));
    expect((await b.abcd(['status', '--json'])).code).toBe(0);
    await workOn(b, 'alive', 'alive.txt', 'x\n');
    // Blocked behind the dead head, the land would end at its 60 s deadline with exit 4.
    const run = await b.abcd(['land', 'alive', '--json', '--wait', '60s']);
    expect(run.code, run.stdout).toBe(0);
    expect((await r.remote.refs()).has('refs/heads/abcd/queue/local/item/ghost')).toBe(false);
  }, 120_000);

  it('land --wait 2s behind a long check exits 4 at the deadline naming the entry it waited on', async () => {
    // slow's check tests until the test lets it go (at most 2 minutes), so it is still testing
    // however long quick (started later, on a loaded machine) takes to end its wait.
    const r = await landRemote(
      'if [ -n "${CHECK_SLEEP:-}" ]; then i=0; while [ ! -e "$CHECK_LOG.go" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; fi',
    );
    const a = await sessionOn(r, 'fay', { CHECK_SLEEP: 'until-go' });
    const b = await sessionOn(r, 'gus');
    await workOn(a, 'slow', 'slow.txt', 'x\n');
    await workOn(b, 'quick', 'quick.txt', 'y\n');
    const slow = a.abcd(['land', 'slow', '--json']);
    // On a loaded machine the slow land may take a while to enqueue; quick must come after it.
    for (let i = 0; i < 600 && !(await r.remote.refs()).has('refs/heads/abcd/queue/local/item/slow'); i++) {
      await new Promise((res) => setTimeout(res, 100));
    }
    expect((await r.remote.refs()).has('refs/heads/abcd/queue/local/item/slow')).toBe(true);
    const t0 = Date.now();
    const quick = await b.abcd(['land', 'quick', '--json', '--wait', '2s']);
    const took = Date.now() - t0;
    expect(quick.code, quick.stdout).toBe(4);
    expect(quick.json.refusal.data.waitedMs).toBeGreaterThanOrEqual(2000);
    expect(quick.json.refusal.data.waitedMs).toBeLessThan(2000 + LOADED_MACHINE_MS);
    expect(quick.json.refusal).toMatchObject({
      code: 'deadline',
      data: { item: 'quick', waitedOn: { item: 'slow', holder: expect.stringContaining('fay') } },
    });
    expect(took).toBeGreaterThanOrEqual(2000);
    expect((await r.remote.refs()).has('refs/heads/abcd/queue/local/item/quick')).toBe(false);
    await writeFile(`${r.log}.go`, '');
    expect((await slow).code).toBe(0);
  }, 120_000);

  it('main moving during the check means a re-test on the new tip; moving every time ends in exit 4 naming the re-tests', async () => {
    // The check itself pushes a commit to main from another clone: main moves under the land.
    const bypass =
      'if [ "$(cat "$MOVES" 2>/dev/null || echo 0)" -lt "$MAX_MOVES" ]; then ' +
      'echo $(( $(cat "$MOVES" 2>/dev/null || echo 0) + 1 )) > "$MOVES"; ' +
      'git -C "$OTHER" pull -q --rebase origin main && git -C "$OTHER" commit -q --allow-empty -m bypass && git -C "$OTHER" push -q origin HEAD:main; fi';
    const r = await landRemote(bypass);
    const other = await sessionOn(r, 'oscar');
    const once = await sessionOn(r, 'pia', { OTHER: other.dir, MOVES: join(other.dir, '..', 'moves-once'), MAX_MOVES: '1' });
    await workOn(once, 'retest', 'retest.txt', 'x\n');
    const ok = await once.abcd(['land', 'retest', '--json']);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.json.attempts).toBe(2);
    const env = once.env;
    const log = await git(r.remote.dir, ['log', '--format=%s', 'main'], env);
    expect(log.split('\n').slice(0, 2)).toEqual(['retest: retest.txt', 'bypass']);

    const always = await sessionOn(r, 'quin', { OTHER: other.dir, MOVES: join(other.dir, '..', 'moves-always'), MAX_MOVES: '99' });
    await workOn(always, 'never', 'never.txt', 'y\n');
    const refused = await always.abcd(['land', 'never', '--json']);
    expect(refused.code, refused.stdout).toBe(4);
    expect(refused.json.refusal).toMatchObject({ code: 'deadline', data: { item: 'never', attempts: 3, main: 'main' } });
    expect(await git(r.remote.dir, ['log', '--format=%s', '-1', 'main'], env)).toBe('bypass');
    // Giving up takes the entry out of the queue, so it cannot block the entries behind it.
    expect((await r.remote.refs()).has('refs/heads/abcd/queue/local/item/never')).toBe(false);
  }, 180_000);

  it('a land stopped by SIGTERM during its check leaves the queue and its worktree, and ends the check', async () => {
    const r = await landRemote('echo $$ > "$CHECK_LOG.pid"; sleep 30');
    const s = await sessionOn(r, 'tess');
    await workOn(s, 'stopped', 'stopped.txt', 'x\n');
    const before = (await r.remote.refs()).get(MAIN);
    const { execa } = await import('execa');
    const run = execa(process.execPath, [ABCD_BIN, 'land', 'stopped', '--json'], {
      cwd: s.dir,
      env: s.env,
      extendEnv: false,
      reject: false,
    });
    const { existsSync } = await import('node:fs');
    // Up to 60 s for the land to reach its check: enqueue, turn and worktree on a loaded machine.
    for (let i = 0; i < 600 && !existsSync(`${r.log}.pid`); i++) await new Promise((res) => setTimeout(res, 100));
    const checkPid = Number((await readFile(`${r.log}.pid`, 'utf8')).trim());
    run.kill('SIGTERM');
    const done = await run;
    expect(done.exitCode, String(done.stdout) + String(done.stderr)).toBe(130);
    expect(JSON.parse(String(done.stdout))).toMatchObject({ ok: false, refusal: { code: 'interrupted' } });
    assertAnswerContract(['land', '--json'], done.exitCode ?? -1, JSON.parse(String(done.stdout)));
    const refs = await r.remote.refs();
    expect(refs.get(MAIN)).toBe(before);
    expect(refs.has('refs/heads/abcd/queue/local/item/stopped')).toBe(false);
    expect((await s.git(['worktree', 'list'])).split('\n')).toHaveLength(1);
    expect(() => process.kill(checkPid, 0)).toThrow();
  }, 120_000);

  it('a queue entry whose claim is unreadable or newer is skipped and reported, never waited on or deleted', async () => {
    const r = await landRemote('true');
    const b = await sessionOn(r, 'uma');
    const other = { person: 'new@example.com', host: 'h', session: 'newer' };
    const early = Date.now() - 60_000;
    const entry = (id: string) =>
      JSON.stringify({
        abcd: 'queue',
        v: 1,
        item: `local:item:${id}`,
        holder: other,
        branch: `work/${id}`,
        head: 'b'.repeat(40),
        main: 'main',
        strategy: 'rebase',
        at: early,
      });
    await writeRawRecord(r.remote.dir, 'refs/heads/abcd/claims/local/item/corrupt', '{"abcd": "claim", not json');
    await writeRawRecord(r.remote.dir, 'refs/heads/abcd/queue/local/item/corrupt', entry('corrupt'));
    await writeRawRecord(
      r.remote.dir,
      'refs/heads/abcd/claims/local/item/newer',
      JSON.stringify({ abcd: 'claim', v: 99, item: 'local:item:newer' }),
    );
    await writeRawRecord(r.remote.dir, 'refs/heads/abcd/queue/local/item/newer', entry('newer'));
    await workOn(b, 'behind', 'behind.txt', 'x\n');
    const run = await b.abcd(['land', 'behind', '--json', '--wait', '20s']);
    expect(run.code, run.stdout).toBe(0);
    expect(run.json.waitedMs).toBeLessThan(15_000);
    const skipped = run.json.skipped.map((x: { item: string; code: string }) => [x.item, x.code]).sort();
    expect(skipped).toEqual([
      ['corrupt', 'record-invalid'],
      ['newer', 'record-too-new'],
    ]);
    const refs = await r.remote.refs();
    expect(refs.get(MAIN)).toBe(run.json.tip);
    expect(refs.has('refs/heads/abcd/queue/local/item/corrupt')).toBe(true);
    expect(refs.has('refs/heads/abcd/queue/local/item/newer')).toBe(true);
    const st = await b.abcd(['status', '--json']);
    expect(
      st.json.queue.map((q: { item: string; alive: boolean; skipped?: { code: string } }) => [q.item, q.alive, q.skipped?.code]),
    ).toEqual([
      ['corrupt', false, 'record-invalid'],
      ['newer', false, 'record-too-new'],
    ]);
  }, 120_000);

  it("the next land removes the worktree a land killed with -9 left, and leaves a live process's worktree alone", async () => {
    const r = await landRemote('echo $$ > "$CHECK_LOG.pid"; sleep "${CHECK_SLEEP:-0}"');
    const s = await sessionOn(r, 'kim', { CHECK_SLEEP: '30' });
    await workOn(s, 'killed', 'killed.txt', 'x\n');
    const { execa } = await import('execa');
    const { existsSync } = await import('node:fs');
    const run = execa(process.execPath, [ABCD_BIN, 'land', 'killed', '--json'], {
      cwd: s.dir,
      env: s.env,
      extendEnv: false,
      reject: false,
    });
    for (let i = 0; i < 600 && !existsSync(`${r.log}.pid`); i++) await new Promise((res) => setTimeout(res, 100));
    run.kill('SIGKILL');
    await run;
    try {
      process.kill(-Number((await readFile(`${r.log}.pid`, 'utf8')).trim()), 'SIGKILL');
    } catch {
      // the check's group may already be gone
    }
    const listed = async () =>
      (await s.git(['worktree', 'list', '--porcelain'])).split('\n').filter((l) => l.startsWith('worktree ')).length;
    expect(await listed()).toBe(2);
    // A worktree named after a process that runs (this test's own) must survive the pruning.
    const { readStartTime } = await import('../../src/machine/gate/process.js');
    const gitDir = await s.git(['rev-parse', '--absolute-git-dir']);
    const live = join(gitDir, 'abcd', 'land', `${process.pid}-${readStartTime(process.pid)}-0badf00d`);
    await s.git(['worktree', 'add', '--detach', '-q', live, 'HEAD']);
    // The killed land's claim is still this session's: release it, so its entry is dead, not ahead.
    expect((await s.abcd(['release', 'killed'])).code).toBe(0);
    await s.git(['checkout', '-q', 'main']);
    await workOn(s, 'after', 'after.txt', 'y\n');
    const next = await s.abcd(['land', 'after', '--json', '--wait', '60s'], { env: { CHECK_SLEEP: '0' } });
    expect(next.code, next.stdout).toBe(0);
    const paths = (await s.git(['worktree', 'list', '--porcelain']))
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .map((l) => l.slice(9));
    expect(paths).toEqual([s.dir, live]);
    expect(existsSync(live)).toBe(true);
  }, 180_000);

  it('a failed check reports truthfully whether its entry left the queue (data.leftQueue)', async () => {
    const r = await landRemote('if [ -n "$MOVE_REMOTE" ]; then mv "$MOVE_REMOTE" "$MOVE_REMOTE.away"; fi; exit 1');
    const s = await sessionOn(r, 'lee');
    await workOn(s, 'left', 'left.txt', 'x\n');
    const left = await s.abcd(['land', 'left', '--json']);
    expect(left.code).toBe(3);
    expect(left.json.refusal).toMatchObject({ code: 'check-failed', data: { leftQueue: true } });
    expect((await r.remote.refs()).has('refs/heads/abcd/queue/local/item/left')).toBe(false);
    await s.git(['checkout', '-q', 'main']);
    await workOn(s, 'stuck', 'stuck.txt', 'y\n');
    const stuck = await s.abcd(['land', 'stuck', '--json'], { env: { MOVE_REMOTE: r.remote.dir } });
    const { rename } = await import('node:fs/promises');
    await rename(`${r.remote.dir}.away`, r.remote.dir);
    expect(stuck.code, stuck.stdout).toBe(3);
    expect(stuck.json.refusal).toMatchObject({ code: 'check-failed', data: { leftQueue: false } });
    expect(stuck.json.refusal.message).toMatch(/could not be taken out of the land queue/);
    expect((await r.remote.refs()).has('refs/heads/abcd/queue/local/item/stuck')).toBe(true);
  }, 120_000);

  it('renewals that keep failing stop the land before the claim lapses, saying why', async () => {
    const r = await landRemote('if [ -n "$MOVE_REMOTE" ]; then mv "$MOVE_REMOTE" "$MOVE_REMOTE.away"; fi; sleep 20');
    const s = await sessionOn(r, 'max');
    expect((await s.abcd(['reserve', 'lapse', '--ttl', '3s'])).code).toBe(0);
    await s.git(['checkout', '-q', '-b', 'work/lapse']);
    await s.commit('lapse.txt', 'x\n');
    const t0 = Date.now();
    const run = await s.abcd(['land', 'lapse', '--json'], { env: { MOVE_REMOTE: r.remote.dir } });
    const took = Date.now() - t0;
    const { rename } = await import('node:fs/promises');
    await rename(`${r.remote.dir}.away`, r.remote.dir);
    expect(run.code, run.stdout).toBe(8);
    expect(run.json.refusal).toMatchObject({
      code: 'remote-unavailable',
      data: { reason: 'renewals-failed', item: 'lapse', leftQueue: false },
    });
    expect(run.json.refusal.data.failedRenewals).toBeGreaterThanOrEqual(1);
    // It stopped before the lapse, not after the 20 s check.
    expect(Date.parse(run.json.refusal.data.lapsesAt)).toBeGreaterThan(t0);
    expect(took).toBeLessThan(18_000);
  }, 120_000);

  it('a renewal that fails with a bug is not swallowed: the keeper stops the land with that error', async () => {
    const r = await landRemote('true');
    const s = await sessionOn(r, 'ned');
    expect((await s.abcd(['reserve', 'buggy', '--ttl', '1500ms'])).code).toBe(0);
    const [{ openRepo }, { readSnapshot }, { ClaimKeeper }, { systemClock }] = await Promise.all([
      import('../../src/repo/repo.js'),
      import('../../src/repo/snapshot.js'),
      import('../../src/claims/claim-keeper.js'),
      import('../../src/core/deps.js'),
    ]);
    const { envConfig } = await import('../../src/cli/env-config.js');
    const repo = await openRepo({
      cwd: s.dir,
      env: s.env,
      config: envConfig(s.env),
      clock: systemClock,
      out: { stdout() {}, stderr() {}, isTTY: false },
      remote: 'origin',
    });
    const held = (await readSnapshot(repo)).claims.get('refs/heads/abcd/claims/local/item/buggy')!;
    const broken = {
      ...repo,
      store: Object.assign(Object.create(repo.store), { push: async () => Promise.reject(new TypeError('a bug')) }),
    };
    const keeper = new ClaimKeeper(broken, held.ref, 'buggy', held.tip, held.claim);
    keeper.start();
    await new Promise<void>((res) => keeper.signal.addEventListener('abort', () => res(), { once: true }));
    expect(keeper.failure).toBeInstanceOf(TypeError);
    expect(keeper.stoppedBy).toBe(keeper.failure);
    await keeper.stop();
  }, 60_000);
});
