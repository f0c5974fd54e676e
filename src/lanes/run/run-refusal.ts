// A lane run that did not land its work ends as a refusal, like every verb that cannot do what
// was asked: `{"ok":false,"refusal":{...}}` under --json, with the run itself in data.result.
// The exit code the run already chose (lane-run.ts) picks the refusal, so the two cannot differ.
import { DeadlineReached, Interrupted, NotLanded, type Refusal } from '../../core/refusals.js';
import type { LaneRunResult } from './lane-run.js';

/** The refusal a finished run answers with, or undefined when it did what was asked (exit 0). */
export function runRefusal(r: LaneRunResult): Refusal | undefined {
  if (r.exit === 0) return undefined;
  const result = { ...r } as Record<string, unknown>;
  const cycles = (r.record?.cycles ?? []).filter((c) => c.outcome !== 'landed');
  const last = r.record?.cycles.at(-1);
  const item = last?.item;
  const run = r.runId ?? 'the lane run';
  if (r.exit === 4) {
    return new DeadlineReached(`${run}: the agent on ${item ?? 'its item'} ran out of time (--agent-timeout); nothing landed.`, {
      waitedOn: 'agent',
      ...(last?.agentMs !== undefined ? { waitedMs: last.agentMs } : {}),
      ...(item ? { item } : {}),
      result,
    });
  }
  if (r.exit === 130) return new Interrupted(`${run} was stopped; nothing more landed.`, { ...(item ? { item } : {}), result });
  const why = cycles.map((c) => `${c.item}: ${c.outcome}${c.reason ? ` (${c.reason})` : ''}`).join('; ');
  return new NotLanded(`${run} ended without landing: ${why || r.outcome}.`, {
    verb: r.verb,
    outcome: r.outcome,
    runId: r.runId ?? null,
    cycles: cycles.map((c) => ({ item: c.item, outcome: c.outcome, reason: c.reason ?? null })),
    result,
  });
}
