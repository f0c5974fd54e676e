// A land runs its checks under the machine's load gate (one heavy job per slot). With every
// slot taken it waits for one, then lands; with a --wait too short for the gate to free up it
// ends with exit 4 naming the gate and who holds it, and leaves the queue.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/deps.js';
import { acquireGate, readGate } from '../../src/machine/gate/gate.js';
import { gateDir } from '../../src/machine/gate/paths.js';
import { systemGateDeps } from '../../src/machine/gate/process.js';
import { cleanupTemp, git, isolatedEnv, tempDir } from '../harness/git-env.js';
import { makeRemote, type BareRemote } from '../harness/remote.js';
import { makeSession, type Session } from '../harness/session.js';

// Timers and process exits run late on a loaded machine: what abcd measured may be late by this much.
const LOADED_MACHINE_MS = 3000;
// A land that has not queued at the gate by then is stuck, not slow.
const STUCK_MS = 60_000;
// How long the gate stays held once the land is seen waiting for it.
const HOLD_AFTER_SEEN_MS = 1500;
const MAIN = 'refs/heads/main';
const gateDeps = systemGateDeps(systemClock, process.pid);

/** A remote whose land check records when it ran, and a session landing one item on it. */
async function landing(item: string): Promise<{ remote: BareRemote; s: Session; gate: string; log: string }> {
  const remote = await makeRemote();
  const root = await tempDir('land-gate');
  const env = isolatedEnv(root);
  const seed = join(root, 'seed');
  await git(root, ['clone', '-q', remote.url, seed], env);
  await git(seed, ['config', 'commit.gpgsign', 'false'], env);
  await mkdir(join(seed, '.abcd'));
  await writeFile(
    join(seed, '.abcd/config.json'),
    JSON.stringify({ land: { checks: 'date +%s%3N >> "$CHECK_LOG"', sandbox: 'none', env: ['CHECK_LOG'] } }),
  );
  await git(seed, ['add', '.'], env);
  await git(seed, ['commit', '-q', '-m', 'configure land checks'], env);
  await git(seed, ['push', '-q', 'origin', 'main'], env);
  const machine = join(root, 'machine');
  const log = join(root, 'checks.log');
  // One slot on this "computer", so the test's own lease fills it.
  const s = await makeSession(remote.url, 'gia', { env: { ABCD_MACHINE_DIR: machine, ABCD_GATE_SLOTS: '1', CHECK_LOG: log } });
  expect((await s.abcd(['reserve', item])).code).toBe(0);
  await s.git(['checkout', '-q', '-b', `work/${item}`]);
  await s.commit(`${item}.txt`, 'x\n', `${item}: work`);
  return { remote, s, gate: gateDir(machine), log };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  const end = Date.now() + STUCK_MS;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`gave up after ${STUCK_MS} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('land and the load gate', () => {
  afterAll(cleanupTemp);

  it('waits for a full gate, then tests and lands once the slot is free', async () => {
    const { remote, s, gate, log } = await landing('gated');
    const held = await acquireGate({ dir: gate, slots: 1, waitMs: 10_000, label: 'npm test (another job)', deps: gateDeps });
    const run = s.abcd(['land', 'gated', '--json', '--wait', '3m'], { timeoutMs: 200_000 });
    await until('the land to queue at the gate', () => readGate(gate, gateDeps).waiters.length === 1);
    const seenAt = Date.now();
    // The land is behind our lease, for its checks, as a land of this item.
    expect(readGate(gate, gateDeps).waiters[0]!.command).toMatch(/^land gated: date/);
    await new Promise((r) => setTimeout(r, HOLD_AFTER_SEEN_MS));
    const mainBefore = (await remote.refs()).get(MAIN);
    expect(await readFile(log, 'utf8').catch(() => ''), 'a check ran while the gate was full').toBe('');
    const releasedAt = Date.now();
    await held.release();
    const r = await run;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({ ok: true, item: 'gated', previousTip: mainBefore, state: 'done' });
    expect((await remote.refs()).get(MAIN)).toBe(r.json.tip);
    // The check ran once, after the slot was freed; the land's own wait covers the gate's.
    const ran = (await readFile(log, 'utf8')).trim().split('\n').map(Number);
    expect(ran).toHaveLength(1);
    expect(ran[0]).toBeGreaterThanOrEqual(releasedAt);
    expect(r.json.waitedMs).toBeGreaterThanOrEqual(releasedAt - seenAt);
    expect(readGate(gate, gateDeps)).toEqual({ holders: [], waiters: [] });
  }, 240_000);

  it('with --wait shorter than the gate stays full: exit 4 naming the gate and its holder, nothing landed, queue left', async () => {
    const { remote, s, gate, log } = await landing('squeezed');
    const held = await acquireGate({ dir: gate, slots: 1, waitMs: 10_000, label: 'npm test (another job)', deps: gateDeps });
    try {
      const before = await remote.refs();
      // Long enough to reach the gate on a loaded machine (fetch, enqueue, turn), far too short for it to free.
      const r = await s.abcd(['land', 'squeezed', '--json', '--wait', '10s']);
      expect(r.code, r.stdout + r.stderr).toBe(4);
      expect(r.json.refusal).toMatchObject({
        code: 'deadline',
        data: { waitedOn: 'load-gate', gate, slots: 1, holders: [{ pid: process.pid, command: 'npm test (another job)' }] },
      });
      expect(r.json.refusal.message).toMatch(/for the load gate at .* held by pid \d+ \(ticket \d+, "npm test \(another job\)"/);
      // The gate's own wait ended by the land's deadline.
      expect(r.json.refusal.data.waitedMs).toBeLessThan(10_000 + LOADED_MACHINE_MS);
      const after = await remote.refs();
      expect(after.get(MAIN)).toBe(before.get(MAIN));
      expect(after.has('refs/heads/abcd/queue/local/item/squeezed')).toBe(false);
      expect(await readFile(log, 'utf8').catch(() => ''), 'no check may run without a slot').toBe('');
      expect(readGate(gate, gateDeps).waiters).toEqual([]);
    } finally {
      await held.release();
    }
  }, 120_000);
});
