// `abcd gate`: run a command under this computer's load gate.
import type { Command } from '../command.js';
import type { Deps } from '../../core/deps.js';
import { isRefusal, UsageError } from '../../core/refusals.js';
import type { RefusalCode } from '../../core/refusal-table.js';
import { durationArg } from '../args.js';
import { codesOf } from '../refusal-codes.js';
import { machineGateContext } from '../../machine/gate/context.js';
import { formatDuration, jsonInstant, table } from '../render.js';

// Waiting longer than this for a machine slot means something is wrong; every wait ends by a stated time.
const DEFAULT_WAIT_MS = 10 * 60_000;

// gate passes its command's exit status through, so its own refusals use codes a command is
// unlikely to return, as timeout(1) and env(1) do (ADR 0031).
export const GATE_EXIT = {
  /** The wait for a slot reached its deadline. */
  deadline: 124,
  /** gate itself failed: usage, unsafe gate directory, a bug. */
  failed: 125,
  /** The command was found but could not be run. */
  cannotRun: 126,
  /** The command was not found. */
  notFound: 127,
} as const;

/** The exit code of gate's own refusal `e` (whose ordinary code is `exit`) when it runs a command. */
export function gateExitOf(e: unknown, exit: number): number {
  if (exit === 130) return exit;
  if (isRefusal(e) && e.code === 'deadline') return GATE_EXIT.deadline;
  if (isRefusal(e) && e.code === 'usage' && typeof e.data.command === 'string') {
    return /permission denied/.test(e.message) ? GATE_EXIT.cannotRun : GATE_EXIT.notFound;
  }
  return GATE_EXIT.failed;
}

// What gate itself can refuse with; all but deadline and a command it cannot run exit 125 when it runs a command.
const GATE_REFUSALS: readonly RefusalCode[] = ['deadline', 'record-too-new', 'unsafe-environment', 'record-invalid'];

export const gate: Command = {
  command: 'gate',
  describe: "run a heavy command under the machine's load gate (first come, first served by ticket)",
  refusals: GATE_REFUSALS,
  exitsHelp: [
    "Exit codes: the command's own exit status passes through (128+n when killed by signal n).",
    "gate's own refusals (refusal codes in --json) use codes a command is unlikely to return:",
    `  ${GATE_EXIT.deadline}  deadline: no slot came free before --wait ran out`,
    `  ${GATE_EXIT.failed}  ${codesOf(GATE_REFUSALS)
      .filter((c) => c !== 'deadline')
      .join(', ')}: gate itself failed`,
    `  ${GATE_EXIT.cannotRun}  usage: the command cannot be run (permission denied)`,
    `  ${GATE_EXIT.notFound}  usage: the command was not found`,
    'With --status the usual codes apply (abcd --help).',
  ].join('\n'),
  agentUse: 'run a heavy command (tests, builds) only when a machine slot is free',
  examples: [
    ['abcd gate --wait 20m -- npm test', "run the tests once one of the machine's slots is free; give up after 20 minutes"],
    ['abcd gate --status', 'who holds the gate and who waits, in ticket order'],
  ],
  builder: (y) =>
    y
      .usage("abcd gate [options] -- <command> [args...]\n\nRun a heavy command under the machine's load gate.")
      .option('slots', { type: 'number', describe: 'jobs at once on this computer (default: ABCD_GATE_SLOTS, else half the CPUs)' })
      .option('wait', { type: 'string', describe: 'how long to wait for a slot (e.g. 90s, 20m); default 10m' })
      .option('status', { type: 'boolean', default: false, describe: 'list holders and waiters instead of running' }),
  async run(args, deps) {
    const argv = ((args['--'] as unknown[] | undefined) ?? []).map(String);
    const { dir, slots, gateDeps } = await machineGateContext(deps, args.slots);
    if (args.status) {
      if (argv.length) throw new UsageError('--status lists the gate; it runs no command. Drop one or the other.', 'argv', { argv });
      const { readGate } = await import('../../machine/gate/gate.js');
      const { describeHolder } = await import('../../machine/gate/refusal.js');
      const view = readGate(dir, gateDeps);
      const now = deps.clock.now();
      const holders = view.holders.map((e) => ({ ...describeHolder(e, now), since: jsonInstant(e.holding?.since ?? e.at) }));
      const waiters = view.waiters.map((e) => ({
        pid: e.pid,
        ticket: e.ticket,
        command: e.command,
        waitedMs: now - e.at,
        until: jsonInstant(e.until),
      }));
      const rows = [
        ...holders.map((h) => ['holding', String(h.ticket), String(h.pid), formatDuration(h.forMs), h.command]),
        ...waiters.map((w) => ['waiting', String(w.ticket), String(w.pid), formatDuration(w.waitedMs), w.command]),
      ];
      const head = `load gate ${dir}: ${holders.length} of ${slots} slot(s) held, ${waiters.length} waiting`;
      const text = rows.length ? `${head}\n${table(['STATE', 'TICKET', 'PID', 'FOR', 'COMMAND'], rows)}` : head;
      return { json: { gate: dir, slots, holders, waiters }, text };
    }
    if (argv.length === 0) throw new UsageError('name the command to run after --, e.g. abcd gate -- npm test', 'argument');
    const waitMs = waitArg(args.wait, deps);
    const { runGated } = await import('../../machine/gate/run.js');
    const { gateWaitLine } = await import('../wait-line.js');
    const onWait = gateWaitLine(deps, argv.join(' ').slice(0, 40));
    const r = await runGated({
      dir,
      slots,
      waitMs,
      deps: gateDeps,
      argv,
      cwd: deps.cwd,
      env: deps.env,
      stdout: args.json ? 'stderr' : 'inherit',
      onWait,
      onSlot: () => deps.progress?.(null),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    return { json: { gate: dir, command: argv, ...r }, text: '', exitCode: r.exitCode };
  },
};

/** --wait, cut short by the job's own end (ABCD_JOB_DEADLINE) so the gate never outlives it. */
function waitArg(value: unknown, deps: Deps): number {
  const wait = durationArg(value, '--wait', DEFAULT_WAIT_MS);
  const job = deps.config.jobDeadline();
  return job !== undefined ? Math.max(0, Math.min(wait, job - deps.clock.now())) : wait;
}
