// Every verb's --json answers keep the contract `abcd schema` publishes on their failure paths
// too: each call below goes through the harness's runAbcd, which checks the answer against the
// schema the built abcd prints and fails on any drift; this file makes sure the failure paths
// are walked at all, and pins each one's code and exit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands.js';
import { cleanupTemp } from '../harness/git-env.js';
import { contractBreach, publishedSchemas } from '../harness/answer-contract.js';
import { COMMITTING_AGENT, laneSession, remoteWithItems } from '../harness/lanes.js';
import type { BareRemote } from '../harness/remote.js';
import { makeSession, type AbcdRun, type Session } from '../harness/session.js';

const CHECK = 'test ! -f bad.txt || exit 7';

describe('the --json contract on every verb, failure paths included', () => {
  let remote: BareRemote;
  let a: Session;
  let b: Session;
  const seen = new Set<string>();
  beforeAll(async () => {
    remote = await remoteWithItems([{ slug: 'fails' }, { slug: 'idle' }, { slug: 'slow' }, { slug: 'works' }], { land: { checks: CHECK } });
    [a, b] = await Promise.all([laneSession(remote, 'alice'), laneSession(remote, 'bob')]);
  });
  afterAll(cleanupTemp);

  /** Runs one verb with --json (the harness checks the answer) and pins its code and exit. */
  async function expectAnswer(s: Session, args: string[], code: string | 'ok', exit: number, env?: Record<string, string>) {
    const r: AbcdRun = await s.abcd([args[0]!, '--json', ...args.slice(1)], { ...(env ? { env } : {}), timeoutMs: 120_000 });
    const got = r.json?.ok === true ? 'ok' : r.json?.refusal?.code;
    expect(got, `abcd ${args.join(' ')}: ${r.stdout} ${r.stderr}`).toBe(code);
    expect(r.code, `abcd ${args.join(' ')}: ${r.stdout}`).toBe(exit);
    seen.add(args[0]!);
    return r;
  }

  /** A fresh branch from main's tip in session s with one committed file. */
  async function branchWith(s: Session, branch: string, file: string, content: string) {
    await s.git(['fetch', '-q', 'origin', 'main']);
    await s.git(['checkout', '-q', '-B', branch, 'origin/main']);
    await s.commit(file, content);
  }

  it('claims, pushes and lands: held, usage, not-holder, branch-refused, nothing-to-land, check-failed, conflict', async () => {
    await expectAnswer(a, ['reserve', 'shape'], 'ok', 0);
    const held = await expectAnswer(b, ['reserve', 'shape'], 'held', 3);
    expect(held.json.refusal.data).toMatchObject({ item: 'shape' });
    await expectAnswer(b, ['reserve', 'Not..A.Slug'], 'usage', 2);
    await expectAnswer(b, ['renew', 'shape'], 'not-holder', 3);
    await expectAnswer(a, ['renew', 'shape', '--ttl', '10m'], 'ok', 0);
    await expectAnswer(b, ['release', 'shape'], 'not-holder', 3);
    await a.git(['checkout', '-q', '-b', 'work/shape']);
    await expectAnswer(a, ['land', 'shape', 'work/shape'], 'nothing-to-land', 3);
    await expectAnswer(a, ['push', 'shape', 'main'], 'branch-refused', 3);
    await a.commit('bad.txt', 'breaks the check\n');
    await expectAnswer(a, ['push', 'shape'], 'ok', 0);
    // What abcd prime tells an agent to read of a failing check is there (the harness checks it too).
    const failed = await expectAnswer(a, ['land', 'shape'], 'check-failed', 3);
    expect(failed.json.refusal.data).toMatchObject({ check: CHECK, exitCode: 7, output: expect.any(String) });
    await expectAnswer(a, ['release', 'shape'], 'ok', 0);
    await expectAnswer(a, ['reserve', 'left'], 'ok', 0);
    await expectAnswer(b, ['reserve', 'right'], 'ok', 0);
    await branchWith(a, 'work/left', 'same.txt', 'left\n');
    await branchWith(b, 'work/right', 'same.txt', 'right\n');
    await expectAnswer(a, ['land', 'left'], 'ok', 0);
    const conflict = await expectAnswer(b, ['land', 'right'], 'conflict', 3);
    expect(conflict.json.refusal.data.files).toEqual(['same.txt']);
    await expectAnswer(b, ['release', 'right'], 'ok', 0);
    await expectAnswer(b, ['reserve', 'left'], 'landed', 3);
  }, 240_000);

  it('the other verbs: their usage errors and their answers, status with steers, pending requests and receipts', async () => {
    await expectAnswer(a, ['announce', 'sleeping', 'shape', 'zzz'], 'usage', 2);
    await expectAnswer(a, ['announce', 'working', 'shape', 'on it'], 'ok', 0);
    await expectAnswer(a, ['steer', 'works', '   '], 'usage', 2);
    await expectAnswer(a, ['steer', 'works', 'also cover logout'], 'ok', 0);
    await expectAnswer(a, ['settings', 'no-such-setting'], 'usage', 2);
    await expectAnswer(a, ['settings'], 'ok', 0);
    await expectAnswer(a, ['schema', 'no-such-verb'], 'usage', 2);
    await expectAnswer(a, ['schema', 'build'], 'ok', 0);
    await expectAnswer(a, ['completion', 'fish'], 'usage', 2);
    await expectAnswer(a, ['completion', 'zsh'], 'ok', 0);
    await expectAnswer(a, ['gate', '--status'], 'ok', 0);
    await expectAnswer(a, ['gate', '--', 'sh', '-c', 'exit 3'], 'ok', 3); // gate passes its command's status through
    await expectAnswer(a, ['budget'], 'ok', 0);
    await expectAnswer(a, ['items'], 'ok', 0);
    await expectAnswer(a, ['review'], 'ok', 0);
    await expectAnswer(a, ['review', '-bad'], 'usage', 2);
    await expectAnswer(a, ['land', 'x', '--approve', 'no-such-run'], 'usage', 2);
    await expectAnswer(a, ['prime'], 'ok', 0);
    await expectAnswer(a, ['logs', 'no-such-run'], 'usage', 2);
    // serve runs until stopped; its answer (the first line) is checked in test/serve.test.ts, its usage refusal here.
    await expectAnswer(a, ['serve', '--port', '70000'], 'usage', 2);
    await expectAnswer(a, ['check-login'], 'ok', 0);
    await expectAnswer(a, ['init', '--agents'], 'ok', 0);
    await expectAnswer(a, ['frobnicate'], 'usage', 2);
    // A held item: build leaves a pending request, which status lists with the steer.
    await expectAnswer(b, ['reserve', 'works'], 'ok', 0);
    await expectAnswer(a, ['build', 'works', '--note', 'from a stranger'], 'not-requester', 3);
    const bobAgain = await makeSession(remote.url, 'bob-too', { person: 'bob@example.com' });
    await expectAnswer(bobAgain, ['build', 'works', '--note', 'after you'], 'ok', 0);
    const st = await expectAnswer(a, ['status'], 'ok', 0);
    expect(st.json.steers).toMatchObject([
      { item: expect.stringMatching(/works$/), text: 'also cover logout', heldBy: expect.any(String) },
    ]);
    expect(st.json.pending).toMatchObject([{ item: expect.stringMatching(/works$/), note: 'after you' }]);
    await expectAnswer(b, ['release', 'works'], 'ok', 0);
  }, 240_000);

  it('build and drain: a failed, an idle and a timed-out agent are refusals carrying the run; a landed one is ok', async () => {
    const failed = await expectAnswer(a, ['build', 'fails', '--agent', 'exit 1'], 'not-landed', 3);
    expect(failed.json.refusal.data).toMatchObject({
      verb: 'build',
      outcome: 'failed',
      cycles: [{ item: 'fails', outcome: 'failed' }],
    });
    expect(failed.json.refusal.data.result.record.cycles).toHaveLength(1);
    const idle = await expectAnswer(a, ['build', 'idle', '--agent', 'true'], 'not-landed', 3);
    expect(idle.json.refusal.data).toMatchObject({ outcome: 'no-change', runId: idle.json.refusal.data.result.runId });
    const slow = await expectAnswer(a, ['build', 'slow', '--agent-timeout', '1s', '--agent', 'sleep 30'], 'deadline', 4);
    expect(slow.json.refusal.data).toMatchObject({ waitedOn: 'agent', item: 'slow', result: { outcome: 'timeout' } });
    await expectAnswer(a, ['build', 'works', '--agent', COMMITTING_AGENT], 'ok', 0);
    // A done item: nothing to do, and nothing refused (it stays done until someone reopens it).
    expect((await expectAnswer(a, ['build', 'works', '--agent', COMMITTING_AGENT], 'ok', 0)).json.outcome).toBe('idle');
    // The steer left on works was consumed by the landing: status lists its receipt.
    const st = await expectAnswer(a, ['status'], 'ok', 0);
    expect(st.json.receipts.map((r: { item: string }) => r.item.replace(/^local:item:/, ''))).toContain('works');
    const drained = await expectAnswer(a, ['drain', '--agent', 'true'], 'not-landed', 3);
    expect(drained.json.refusal.data.verb).toBe('drain');
    expect(drained.json.refusal.data.cycles.map((c: { outcome: string }) => c.outcome)).toEqual(['no-change', 'no-change', 'no-change']);
    await expectAnswer(a, ['drain', '--agent', COMMITTING_AGENT], 'ok', 0);
    await expectAnswer(a, ['drain', '--max-cycles', '0', '--agent', 'true'], 'usage', 2);
  }, 300_000);

  it('walked every verb an agent or a lane uses, and the harness catches the drifts it was written for', () => {
    for (const c of commands) {
      const verb = String(c.command).split(' ')[0]!;
      if (['setup-app', 'credential'].includes(verb)) continue; // the person's browser flow; git's own helper protocol
      expect(seen, verb).toContain(verb);
    }
    expect(publishedSchemas().size).toBe(commands.length);
    // A lane run that landed nothing answered ok:false without a refusal; status carried keys its schema forbids.
    expect(contractBreach(['build', 'x', '--json'], 3, { ok: false, outcome: 'no-change', exit: 3 })).toBeDefined();
    expect(contractBreach(['status', '--json'], 0, { ok: true, novel: [] })).toBeDefined();
    // A refusal whose exit is not the process's, and a check-failed without the data prime names.
    const refusal = { code: 'check-failed', exit: 3, message: 'm', data: { check: 'c', exitCode: 1, timedOut: false, output: '' } };
    expect(contractBreach(['land', 'x', '--json'], 3, { ok: false, refusal })).toBeUndefined();
    expect(contractBreach(['land', 'x', '--json'], 1, { ok: false, refusal })).toMatch(/exited 1/);
    expect(contractBreach(['land', 'x', '--json'], 3, { ok: false, refusal: { ...refusal, data: { check: 'c' } } })).toMatch(
      /data\.output/,
    );
  });
});
