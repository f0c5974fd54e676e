// The options build and drain share, and their rendering. Thin: parsing and text only.
import type { Argv } from 'yargs';
import { UsageError } from '../core/refusals.js';
import { durationArg, ttlArg } from './args.js';
import { formatDuration } from './render.js';
import type { LaneFlags } from '../lanes/options.js';
import type { LaneRunResult } from '../lanes/lane-run.js';

export function laneOptions(y: Argv): Argv {
  return y
    .option('runtime', {
      choices: ['command', 'claude', 'codex'] as const,
      describe: 'what runs the agent: command (--agent), claude (Claude Code) or codex (default: lanes.runtime, else command)',
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

export function renderLaneRun(r: LaneRunResult): { json: Record<string, unknown>; text: string; exitCode: number } {
  const json = { ...r, ok: r.exit === 0 };
  if (r.pending) {
    const p = r.pending;
    return {
      json,
      exitCode: 0,
      text: `${p.item} is held by ${p.holder}: the request waits in its pending slot (${p.replaced ? `replacing an older one, ${p.coalesced} coalesced` : 'new'}); the active lane runs one follow-up after its cycle`,
    };
  }
  const lines = [`lane run ${r.runId} (${r.lifecycle}, sandbox ${r.sandbox}): ${r.outcome}`];
  if (r.warning) lines.push(`warning: ${r.warning}`);
  if (r.login) lines.push(r.login);
  for (const c of r.record?.cycles ?? []) {
    const what = c.outcome === 'landed' ? `landed at ${c.landed?.slice(0, 12)}` : `${c.outcome}${c.reason ? `: ${c.reason}` : ''}`;
    lines.push(`  ${c.item}${c.followUp ? ' (follow-up)' : ''}: ${what} in ${formatDuration(c.durationMs)}`);
  }
  for (const d of r.record?.deferred ?? []) lines.push(`  deferred ${d.item}: ${d.why}`);
  if (r.publishError) lines.push(`the result record could not be written: ${r.publishError}`);
  return { json, text: lines.join('\n'), exitCode: r.exit };
}
