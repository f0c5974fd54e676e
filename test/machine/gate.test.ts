// The machine's load gate: ticket order (never pid order, iss-2610161634043273), dead holders
// found by pid + start time, deadlines that end in DeadlineReached naming the holders.
// Ordering with injected pids runs in this process; kill -9, status and the multi-process
// race run real node processes that use the gate module as built in dist/ (npm run build).
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gate as gateCommand } from '../../src/cli/commands/gate.js';
import type { GlobalArgs } from '../../src/cli/command.js';
import { type Clock, type Deps, systemClock } from '../../src/core/deps.js';
import { acquireGate, readGate } from '../../src/machine/gate/gate.js';
import { gateDir, LOCK_DIR, ownedName } from '../../src/machine/gate/paths.js';
import { envConfig } from '../../src/cli/env-config.js';
import { readEnvConfig } from '../../src/core/env.js';
import { type GateDeps, isProcessAlive, readStartTime, systemGateDeps } from '../../src/machine/gate/process.js';
import { runGated } from '../../src/machine/gate/run.js';
import { watchGate } from '../../src/machine/gate/watch.js';
import { DeadlineReached, UnsafeEnvironment } from '../../src/core/refusals.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

const ROOT = resolve(import.meta.dirname, '../..');
// Timers and process exits run late on a loaded machine: what the gate measured may be late by this much.
const LOADED_MACHINE_MS = 3000;
const realDeps = systemGateDeps(systemClock, process.pid);

/** In-process "processes": any pid we choose, alive while it is in `alive`. */
function fakeDeps(pid: number, alive: Set<number>): GateDeps {
  return {
    clock: systemClock,
    pid,
    startTime: (p) => (alive.has(p) ? `${p}0` : null),
    isAlive: (id) => alive.has(id.pid) && id.start === `${id.pid}0`,
  };
}

// A child that has not got there by then is stuck, not slow (node starts in seconds at load 40).
async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let workerDir: string; // holds worker.mjs, which imports the built gate from dist/
const children: ChildProcess[] = [];

beforeAll(async () => {
  // The children run what the CLI ships (dist/, made by `npm run build`), never a fresh compile.
  const built = join(ROOT, 'dist/machine/gate/gate.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build before the tests`);
  workerDir = await tempDir('gate-worker');
  writeFileSync(join(workerDir, 'worker.mjs'), WORKER);
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(cleanupTemp);

// argv: gate dir, slots, hold ms (-1: until killed), wait ms, log file or "", rounds.
const WORKER = `
import { appendFileSync } from 'node:fs';
import { acquireGate } from '${pathToFileURL(join(ROOT, 'dist/machine/gate/gate.js')).href}';
import { systemGateDeps } from '${pathToFileURL(join(ROOT, 'dist/machine/gate/process.js')).href}';
import { systemClock } from '${pathToFileURL(join(ROOT, 'dist/core/deps.js')).href}';
const [dir, slots, holdMs, waitMs, log, rounds] = process.argv.slice(2);
const note = (ev, ticket) => log && appendFileSync(log, JSON.stringify({ ev, ticket, pid: process.pid, t: performance.timeOrigin + performance.now() }) + '\\n');
try {
  const deps = systemGateDeps(systemClock, process.pid);
  for (let round = 0; round < Number(rounds); round++) {
    const lease = await acquireGate({ dir, slots: Number(slots), waitMs: Number(waitMs), label: 'worker ' + process.pid, deps });
    note('start', lease.ticket);
    console.log(JSON.stringify({ held: lease.ticket }));
    if (Number(holdMs) < 0) await new Promise(() => setInterval(() => {}, 1 << 30));
    await new Promise((r) => setTimeout(r, Number(holdMs)));
    note('end', lease.ticket);
    await lease.release();
  }
} catch (e) {
  console.log(JSON.stringify({ refused: e.code ?? String(e), data: e.data }));
  process.exitCode = e.exit ?? 1;
}
`;

function startWorker(dir: string, o: { slots: number; holdMs: number; waitMs: number; log?: string; rounds?: number }) {
  const args = [
    join(workerDir, 'worker.mjs'),
    dir,
    String(o.slots),
    String(o.holdMs),
    String(o.waitMs),
    o.log ?? '',
    String(o.rounds ?? 1),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(JSON.parse(l)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, pid: child.pid!, lines, exited };
}

async function newGate(): Promise<string> {
  return gateDir(join(await tempDir('gate'), 'machine'));
}

describe('load gate: ticket order', () => {
  const orders: Record<string, number[]> = {
    descending: Array.from({ length: 20 }, (_, i) => 40_000 - i * 37),
    wrapped: [...Array.from({ length: 10 }, (_, i) => 4_194_200 + i * 9), ...Array.from({ length: 10 }, (_, i) => 300 + i)],
  };
  for (const [name, pids] of Object.entries(orders)) {
    it(`20 waiters, 2 slots, pids ${name}: served strictly in ticket order, never more than 2 at once`, async () => {
      const dir = await newGate();
      const alive = new Set([7, 8, ...pids]);
      const blockers = [await acquireGate({ dir, slots: 2, waitMs: 10_000, label: 'blocker', deps: fakeDeps(7, alive) })];
      blockers.push(await acquireGate({ dir, slots: 2, waitMs: 10_000, label: 'blocker', deps: fakeDeps(8, alive) }));
      const served: number[] = [];
      let running = 0;
      let most = 0;
      const waiters: Promise<void>[] = [];
      for (const [i, pid] of pids.entries()) {
        waiters.push(
          (async () => {
            const lease = await acquireGate({ dir, slots: 2, waitMs: 60_000, label: `job ${i}`, deps: fakeDeps(pid, alive) });
            served.push(lease.ticket);
            most = Math.max(most, ++running);
            await new Promise((r) => setTimeout(r, 5 + (i % 3) * 10));
            running--;
            await lease.release();
          })(),
        );
        // Queue them one by one, so ticket order is the order they arrived in.
        await until(`waiter ${i} queued`, () => readGate(dir, fakeDeps(1, alive)).waiters.length === i + 1);
      }
      const queued = readGate(dir, fakeDeps(1, alive)).waiters;
      expect(queued.map((w) => w.pid)).toEqual(pids);
      expect(queued.map((w) => w.ticket)).toEqual(pids.map((_, i) => i + 3));
      for (const b of blockers) await b.release();
      await Promise.all(waiters);
      expect(served).toEqual(pids.map((_, i) => i + 3));
      expect(most).toBe(2);
      expect(readGate(dir, fakeDeps(1, alive))).toEqual({ holders: [], waiters: [] });
    });
  }

  it('real processes at once, 1 slot: each starts after the last ended, in ticket order', async () => {
    const dir = await newGate();
    const log = join(await tempDir('gate-log'), 'log');
    const workers = Array.from({ length: 8 }, () => startWorker(dir, { slots: 1, holdMs: 30, waitMs: 60_000, log }));
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual(workers.map(() => 0));
    const events = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ev: string; ticket: number });
    const tickets = events.filter((e) => e.ev === 'start').map((e) => e.ticket);
    expect(tickets).toEqual([...tickets].sort((a, b) => a - b));
    expect(events.map((e) => e.ev)).toEqual(tickets.flatMap(() => ['start', 'end']));
  });

  it('12 real processes taking a slot 15 times each, 2 slots: never more than 2 at once, no ticket twice', async () => {
    const dir = await newGate();
    const log = join(await tempDir('gate-log'), 'log');
    // Each hold is long enough that, on a loaded machine too, a second worker takes the other
    // slot while the first still holds one: the log then shows two at once, never three.
    const workers = Array.from({ length: 12 }, () => startWorker(dir, { slots: 2, holdMs: 20, waitMs: 100_000, log, rounds: 15 }));
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual(workers.map(() => 0));
    // File order is a true order: "end" is written before the release, "start" after the acquire.
    const events = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { ev: string; ticket: number });
    let running = 0;
    let most = 0;
    for (const e of events) most = Math.max(most, (running += e.ev === 'start' ? 1 : -1));
    expect(most).toBe(2);
    const tickets = events.filter((e) => e.ev === 'start').map((e) => e.ticket);
    expect(new Set(tickets).size).toBe(12 * 15);
    expect(readGate(dir, realDeps)).toEqual({ holders: [], waiters: [] });
  });
});

describe('load gate: dead holders and waiters', () => {
  it('a holder killed with kill -9 frees its slot for the next waiter', async () => {
    const dir = await newGate();
    const holder = startWorker(dir, { slots: 1, holdMs: -1, waitMs: 5000 });
    await until('the child holds the gate', () => holder.lines.length > 0);
    expect(holder.lines[0]).toEqual({ held: 1 });
    expect(readGate(dir, realDeps).holders.map((h) => [h.pid, h.ticket])).toEqual([[holder.pid, 1]]);
    // The holder never releases: a lease before this deadline can only come from finding it dead.
    const waiting = acquireGate({ dir, slots: 1, waitMs: 60_000, label: 'next', deps: realDeps });
    await until('the waiter queued', () => readGate(dir, realDeps).waiters.length === 1);
    holder.child.kill('SIGKILL');
    const lease = await waiting;
    expect(lease.ticket).toBe(2);
    expect(readGate(dir, realDeps).holders.map((h) => [h.pid, h.ticket])).toEqual([[process.pid, 2]]);
    const onDisk = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { entries: { pid: number }[] };
    expect(onDisk.entries.map((e) => e.pid)).toEqual([process.pid]); // the dead entry was dropped
    await lease.release();
  });

  it('a holder whose pid now belongs to a process started at another time counts as dead', async () => {
    const dir = await newGate();
    mkdirSync(dir, { recursive: true });
    expect(isProcessAlive({ pid: process.pid, start: '1' })).toBe(false);
    expect(isProcessAlive({ pid: process.pid, start: realDeps.startTime(process.pid) })).toBe(true);
    const now = Date.now();
    // Written by an earlier process that had this pid: same pid, another start time.
    const reused = { ticket: 41, pid: process.pid, start: '1', command: 'old', slots: 1, at: now, until: now, holding: { since: now } };
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ abcd: 'gate', v: 1, next: 42, entries: [reused] }));
    expect(readGate(dir, realDeps).holders).toEqual([]);
    // Counted alive, the old entry would hold the only slot until this wait ended in DeadlineReached.
    const lease = await acquireGate({ dir, slots: 1, waitMs: 5000, label: 'new', deps: realDeps });
    expect(lease.ticket).toBe(42);
    await lease.release();
  });

  it('a live waiter stuck past its own deadline does not hold the queue', async () => {
    const dir = await newGate();
    mkdirSync(dir, { recursive: true });
    const now = Date.now();
    const stuck = {
      ticket: 1,
      pid: process.pid,
      start: realDeps.startTime(process.pid),
      command: 'stuck',
      slots: 1,
      at: now - 9000,
      until: now - 5000,
    };
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ abcd: 'gate', v: 1, next: 2, entries: [stuck] }));
    const lease = await acquireGate({ dir, slots: 1, waitMs: 10_000, label: 'next', deps: realDeps });
    expect(lease.ticket).toBe(2);
    await lease.release();
  });
});

describe('load gate: deadlines', () => {
  it('a waiter past its deadline gets DeadlineReached naming the gate, holders and time waited', async () => {
    const dir = await newGate();
    const alive = new Set([4321, 99]);
    const held = await acquireGate({ dir, slots: 1, waitMs: 10_000, label: 'npm test', deps: fakeDeps(4321, alive) });
    const err = await acquireGate({ dir, slots: 1, waitMs: 600, label: 'make', deps: fakeDeps(99, alive) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineReached);
    const refusal = err as DeadlineReached;
    expect(refusal.exit).toBe(4);
    expect(refusal.data).toMatchObject({ waitedOn: 'load-gate', gate: dir, slots: 1, ticket: 2, ahead: [] });
    expect(refusal.data.holders).toEqual([
      { pid: 4321, ticket: 1, command: 'npm test', since: expect.any(Number), forMs: expect.any(Number) },
    ]);
    expect(refusal.data.waitedMs).toBeGreaterThanOrEqual(600);
    expect(refusal.data.waitedMs).toBeLessThan(600 + LOADED_MACHINE_MS);
    expect(refusal.message).toMatch(/^waited \d+(\.\d)?m?s for the load gate at .* held by pid 4321 \(ticket 1, "npm test"/);
    expect(readGate(dir, fakeDeps(1, alive))).toMatchObject({ holders: [{ pid: 4321 }], waiters: [] });
    await held.release();
  });

  it('a real process past its deadline exits 4 with the refusal', async () => {
    const dir = await newGate();
    const holder = startWorker(dir, { slots: 1, holdMs: -1, waitMs: 5000 });
    await until('the child holds the gate', () => holder.lines.length > 0);
    const waiter = startWorker(dir, { slots: 1, holdMs: 0, waitMs: 500 });
    expect(await waiter.exited).toBe(4);
    expect(waiter.lines[0]).toMatchObject({ refused: 'deadline', data: { holders: [{ pid: holder.pid, ticket: 1 }] } });
    // What the waiter measured from its own start of the wait, not node's start-up.
    const { waitedMs } = (waiter.lines[0] as { data: { waitedMs: number } }).data;
    expect(waitedMs).toBeGreaterThanOrEqual(500);
    expect(waitedMs).toBeLessThan(500 + LOADED_MACHINE_MS);
  });
});

describe('load gate: a slot that cannot name its command', () => {
  it('runs the command all the same when the lock stays held, passes on its exit code and gives the slot back', async () => {
    const dir = await newGate();
    const work = await tempDir('gate-attach');
    const ready = join(work, 'ready');
    const done = join(work, 'done');
    // Above any pid the kernel hands out: a lock owner only this test's liveness knows, alive until the command is done.
    const blocker = ownedName('owner', { pid: 4_194_304 + 7, start: '1' }, 'b10c');
    let offset = 0;
    // Each wait for the lock, once the command runs, passes 10 s at once: the attach's wait for the lock ends in its deadline.
    const clock: Clock = {
      now: () => Date.now() + offset,
      sleep: async () => {
        await until('the command runs', () => existsSync(ready));
        offset += 10_000;
      },
    };
    const deps: GateDeps = {
      clock,
      pid: process.pid,
      startTime: readStartTime,
      isAlive: (id) => (id.pid === 4_194_304 + 7 ? !existsSync(done) : isProcessAlive(id)),
    };
    // The command waits while the attach waits for the lock (its stage folder is there), then ends.
    const script = [
      'until ls "$3" | grep -q "^stage-"; do sleep 0.01; done',
      'touch "$1"',
      'while ls "$3" | grep -q "^stage-"; do sleep 0.01; done',
      'touch "$2"',
      'exit 3',
    ].join('\n');
    const r = await runGated({
      dir,
      slots: 1,
      waitMs: 10_000,
      deps,
      argv: ['sh', '-c', script, 'sh', ready, done, dir],
      cwd: work,
      env: { PATH: process.env.PATH },
      stdout: 'inherit',
      onSlot: () => writeFileSync(join(dir, LOCK_DIR, blocker), ''),
    });
    expect(r).toMatchObject({ exitCode: 3, ticket: 1 });
    expect(existsSync(done)).toBe(true);
    expect(existsSync(join(dir, LOCK_DIR, blocker))).toBe(false);
    expect(readGate(dir, realDeps)).toEqual({ holders: [], waiters: [] });
  });
});

describe('load gate: its folder', () => {
  it('waits by polling alone where the folder cannot be watched', async () => {
    const gone = join(await tempDir('gate'), 'absent');
    const w = watchGate(gone);
    let slept = 0;
    const clock: Clock = { now: () => Date.now(), sleep: async () => void slept++ };
    await w.wait(clock, 1);
    await w.wait(clock, 1);
    expect(slept).toBe(2);
    w.close();
  });

  // A folder this user cannot write: /proc/sys is one even for root where /proc/sys is read-only.
  const writable = (() => {
    try {
      accessSync('/proc/sys', constants.W_OK | constants.X_OK);
      return true;
    } catch {
      return false;
    }
  })();
  it.skipIf(writable)('refuses a machine folder this user cannot write, naming it', async () => {
    const err = await acquireGate({ dir: '/proc/sys/gate', slots: 1, waitMs: 100, label: 'x', deps: realDeps }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafeEnvironment);
    expect((err as UnsafeEnvironment).data).toMatchObject({ dir: '/proc/sys' });
  });
});

describe('abcd gate', () => {
  function cliDeps(machine: string, env: Record<string, string> = {}) {
    const out = { stdout: '', stderr: '' };
    const fullEnv = { PATH: process.env.PATH, ABCD_MACHINE_DIR: machine, ...env };
    const deps: Deps = {
      cwd: ROOT,
      env: fullEnv,
      config: envConfig(fullEnv),
      clock: systemClock,
      out: { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t), isTTY: false },
      remote: 'origin',
    };
    return { deps, out };
  }
  const args = (a: Record<string, unknown>) =>
    ({ json: false, debug: false, remote: 'origin', status: false, ...a }) as Record<string, unknown> & GlobalArgs;

  it('--status lists holders and waiters in ticket order', async () => {
    const machine = join(await tempDir('gate'), 'machine');
    const dir = gateDir(machine);
    const holder = startWorker(dir, { slots: 1, holdMs: -1, waitMs: 5000 });
    await until('the child holds the gate', () => holder.lines.length > 0);
    const waiter = startWorker(dir, { slots: 1, holdMs: 0, waitMs: 30_000 });
    await until('the second child waits', () => readGate(dir, realDeps).waiters.length === 1);
    const { deps } = cliDeps(machine, { ABCD_GATE_SLOTS: '1' });
    const r = await gateCommand.run(args({ status: true }), deps, { commands: [] });
    expect(r.json).toMatchObject({
      gate: dir,
      slots: 1,
      holders: [{ pid: holder.pid, ticket: 1 }],
      waiters: [{ pid: waiter.pid, ticket: 2 }],
    });
    const lines = r.text.split('\n');
    expect(lines[0]).toBe(`load gate ${dir}: 1 of 1 slot(s) held, 1 waiting`);
    expect(lines[2]).toMatch(new RegExp(`^holding\\s+1\\s+${holder.pid}\\s+\\S+\\s+worker ${holder.pid}$`));
    expect(lines[3]).toMatch(new RegExp(`^waiting\\s+2\\s+${waiter.pid}\\s+\\S+\\s+worker ${waiter.pid}$`));
    holder.child.kill('SIGKILL');
    expect(await waiter.exited).toBe(0);
  });

  it('runs the command under the gate and passes on its exit code', async () => {
    const machine = join(await tempDir('gate'), 'machine');
    const { deps } = cliDeps(machine);
    const r = await gateCommand.run(args({ slots: 1, '--': [process.execPath, '-e', 'process.exit(3)'] }), deps, { commands: [] });
    expect(r.exitCode).toBe(3);
    expect(r.json).toMatchObject({ gate: gateDir(machine), exitCode: 3, ticket: 1, signal: null });
    expect(readGate(gateDir(machine), realDeps)).toEqual({ holders: [], waiters: [] });
  });

  it('keeps its state in a folder shared by every user like /tmp, never under HOME', async () => {
    const machine = join(await tempDir('gate'), 'machine');
    await gateCommand.run(args({ slots: 1, '--': ['true'] }), cliDeps(machine).deps, { commands: [] });
    expect(statSync(machine).mode & 0o7777).toBe(0o1777);
    expect(statSync(gateDir(machine)).mode & 0o7777).toBe(0o777);
    const facts = { tmpdir: '/tmp', hostname: 'h', homedir: '/home/p', cpus: 2 };
    expect(readEnvConfig({ HOME: '/home/p' }, facts).machineDir).toBe('/tmp/abcd-machine');
    expect(readEnvConfig({ ABCD_MACHINE_DIR: machine }, facts).machineDir).toBe(machine);
  });

  it('waits no longer than the job itself may run (ABCD_JOB_DEADLINE)', async () => {
    const machine = join(await tempDir('gate'), 'machine');
    const held = await acquireGate({ dir: gateDir(machine), slots: 1, waitMs: 10_000, label: 'build', deps: realDeps });
    const jobEndsAt = Date.now() + 400;
    const { deps } = cliDeps(machine, { ABCD_JOB_DEADLINE: new Date(jobEndsAt).toISOString() });
    const err = await gateCommand.run(args({ slots: 1, wait: '10m', '--': ['true'] }), deps, { commands: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeadlineReached);
    expect((err as DeadlineReached).data).toMatchObject({ holders: [{ pid: process.pid, command: 'build' }] });
    // Ended by the job's deadline, not the 10 minutes asked for (a timestamp after the act).
    expect(Date.now()).toBeLessThan(jobEndsAt + LOADED_MACHINE_MS);
    await held.release();
  });

  it('refuses a bad slot count and a missing command as usage errors', async () => {
    const machine = join(await tempDir('gate'), 'machine');
    const bad = cliDeps(machine, { ABCD_GATE_SLOTS: 'lots' }).deps;
    await expect(gateCommand.run(args({ '--': ['true'] }), bad, { commands: [] })).rejects.toMatchObject({
      code: 'usage',
      data: { ABCD_GATE_SLOTS: 'lots' },
    });
    await expect(gateCommand.run(args({ '--': [] }), cliDeps(machine).deps, { commands: [] })).rejects.toMatchObject({
      code: 'usage',
      exit: 2,
    });
  });

  it('a command run inside a slot that gates itself again runs in that slot instead of waiting behind it', async () => {
    const dir = await newGate();
    const outer = await acquireGate({ dir, slots: 1, waitMs: 10_000, label: 'outer', deps: realDeps });
    const nested = { dir, slots: 1, waitMs: 500, deps: realDeps, argv: ['true'], cwd: ROOT, stdout: 'inherit' as const };
    const r = await runGated({ ...nested, env: { PATH: process.env.PATH, ABCD_GATE_HELD: `${outer.ticket}@${dir}` } });
    expect(r).toMatchObject({ exitCode: 0, ticket: null });
    const other = await runGated({ ...nested, env: { PATH: process.env.PATH, ABCD_GATE_HELD: `99@${dir}` } }).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(DeadlineReached);
    await outer.release();
  });
});
