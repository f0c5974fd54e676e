// The options build and drain share, and their rendering. Thin: parsing and text only.
import type { Argv } from 'yargs';
import { UsageError } from '../core/refusals.js';
import { durationArg, ttlArg } from './args.js';
import { formatDuration } from './render.js';
import type { LaneFlags } from '../lanes/run/options.js';
import type { LaneRunInput, LaneRunResult } from '../lanes/run/lane-run.js';
import { runRefusal } from '../lanes/run/run-refusal.js';
import type { Deps } from '../core/deps.js';
import type { Result } from './command.js';
import { laneLines } from './lane-lines.js';
import { RUNTIME_NAMES } from '../repo/runtime-names.js';

export function laneOptions(y: Argv): Argv {
  return y
    .option('runtime', {
      choices: RUNTIME_NAMES,
      describe:
        'what runs the agent: command (--agent), claude (Claude Code), codex or gemini (Gemini CLI) (default: lanes.runtime, else command)',
    })
    .option('agent', { type: 'string', describe: 'the agent command, run with sh -c per cycle (default: lanes.agent on main)' })
    .option('sandbox', { choices: ['auto', 'bwrap', 'none'] as const, describe: 'run the agent under bubblewrap (auto: when it works)' })
    .option('lifecycle', {
      choices: ['once', 'poll', 'timed'] as const,
      describe: 'once (default), poll until idle, or timed until --deadline',
    })
    .option('deadline', { type: 'string', describe: 'hard deadline: a duration (50m) or an RFC 3339 instant' })
    .option('idle', { type: 'string', describe: 'poll/timed: exit after this long without work (default 5m)' })
    .option('ttl', { type: 'string', describe: "the lane's claim time to live between renewals (default 10m)" })
    .option('agent-timeout', { type: 'string', describe: 'kill the agent and all it started after this long (default 30m)' })
    .option('max-cycles', { type: 'number', describe: 'cycles per item per run (default 3)' })
    .option('attended', {
      type: 'boolean',
      default: false,
      describe: 'a person starts and watches this lane: it counts as their own session',
    });
}

export function laneFlags(args: Record<string, unknown>): LaneFlags {
  const maxCycles = args['max-cycles'];
  if (maxCycles !== undefined && (!Number.isInteger(maxCycles) || (maxCycles as number) < 1)) {
    throw new UsageError(`--max-cycles ${String(maxCycles)} is not a whole number of at least 1.`, 'argument');
  }
  return {
    ...(args.runtime ? { runtime: args.runtime as LaneFlags['runtime'] } : {}),
    ...(typeof args.agent === 'string' ? { agent: args.agent } : {}),
    ...(args.sandbox ? { sandbox: args.sandbox as LaneFlags['sandbox'] } : {}),
    ...(args.lifecycle ? { lifecycle: args.lifecycle as LaneFlags['lifecycle'] } : {}),
    ...(typeof args.deadline === 'string' ? { deadline: args.deadline } : {}),
    ...(args.idle !== undefined ? { idleMs: durationArg(args.idle, '--idle', 0) } : {}),
    ...(args.ttl !== undefined ? { ttlMs: ttlArg(args.ttl)! } : {}),
    ...(args['agent-timeout'] !== undefined ? { agentTimeoutMs: durationArg(args['agent-timeout'], '--agent-timeout', 0) } : {}),
    ...(maxCycles !== undefined ? { maxCycles: maxCycles as number } : {}),
  };
}

/**
 * Runs the lane with its live lines (or plain phase lines off a terminal), removed when it ends.
 * The lane's own waits show no wait line of their own: the lane's line says it is landing.
 */
export async function runWithLines(
  deps: Deps,
  o: { json: boolean; attended: boolean },
  run: (deps: Deps, extra: Pick<LaneRunInput, 'onProgress' | 'onOutput' | 'onWarning'>) => Promise<LaneRunResult>,
): Promise<LaneRunResult> {
  // An attended build streams its agent's output to stderr: live lines would be drawn over it.
  const streaming = o.attended && !o.json;
  const lines = laneLines(deps, { json: o.json, streaming });
  const extra = {
    // Before any agent runs, whatever the output mode: the person sees it while the lane runs.
    onWarning: (t: string) => deps.out.stderr(`abcd: warning: ${t}\n`),
    ...(lines.onProgress ? { onProgress: lines.onProgress } : {}),
    ...(streaming ? { onOutput: (t: string) => deps.out.stderr(t) } : {}),
  };
  try {
    return await run(lines.deps, extra);
  } finally {
    lines.stop();
  }
}

export function renderLaneRun(r: LaneRunResult, o: { verbose?: boolean } = {}): Result {
  const json: Record<string, unknown> = { ...r };
  // A run that landed nothing is refused (exit 3, 4 or 130): its answer says why and carries the run.
  const refusal = runRefusal(r);
  if (refusal) return { json, refusal, exitCode: r.exit, text: laneRunText(r, o.verbose === true) };
  if (r.pending) {
    const p = r.pending;
    return {
      json,
      exitCode: 0,
      text: `${p.item} is held by ${p.holder}: the request waits in its pending slot (${p.replaced ? `replacing an older one, ${p.coalesced} coalesced` : 'new'}); the active lane runs one follow-up after its cycle`,
    };
  }
  return { json, text: laneRunText(r, o.verbose === true), exitCode: r.exit };
}

function laneRunText(r: LaneRunResult, verbose: boolean): string {
  const lines = [`lane run ${r.runId} (${r.lifecycle}, sandbox ${r.sandbox}): ${r.outcome}`];
  if (r.warning) lines.push(`warning: ${r.warning}`);
  // How the login check let the lane through says nothing of what the run did: --verbose shows it.
  if (r.login && (verbose || r.login.includes('unknown:'))) lines.push(r.login);
  for (const c of r.record?.cycles ?? []) {
    const what = c.outcome === 'landed' ? `landed at ${c.landed?.slice(0, 12)}` : `${c.outcome}${c.reason ? `: ${c.reason}` : ''}`;
    lines.push(`  ${c.item}${c.followUp ? ' (follow-up)' : ''}: ${what} in ${formatDuration(c.durationMs)}`);
  }
  for (const d of r.record?.deferred ?? []) lines.push(`  deferred ${d.item}: ${d.why}`);
  if (r.publishError) lines.push(`the result record could not be written: ${r.publishError}`);
  return lines.join('\n');
}
