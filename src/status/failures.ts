// What went wrong in the last day, one entry per item: the cycles that failed, timed out,
// conflicted, changed nothing or were stopped, the items a lost run was working on, and the
// items a run left when its budget ran out. An item whose latest cycle landed, that a running
// lane works on now, or that is done, is not listed: only what still waits for a person.
// Plain data, so the terminal's status and any other view render the same list.
import type { CycleRecord, LaneResultRecord } from '../records/lane-result.js';
import { formatHolder } from '../records/holder.js';
import { runStanding, type ProcessGone } from './lane-views.js';

// How far back status looks for failures.
export const FAILURE_WINDOW_MS = 86_400_000;

export type FailureKind = 'agent-exit' | 'timeout' | 'check' | 'conflict' | 'no-change' | 'stopped' | 'budget' | 'lost' | 'other';

export interface FailureView {
  item: string;
  runId: string;
  holder: string;
  /** When it happened: the cycle's end, the lost run's last rewrite, the budget's stop. */
  at: number;
  kind: FailureKind;
  /** One line a person reads: what failed, and the agent's or the check's last meaningful line. */
  what: string;
  exitCode?: number;
  /** The last line that says something, of the agent's output (or the failing check's). */
  lastLine?: string;
  check?: { name: string; exitCode: number };
  conflictFiles?: string[];
  /** The remote branch that keeps the cycle's work, when it was kept. */
  branch?: string;
  /** What to run next, most useful first. */
  next: string[];
}

export interface FailureInput {
  runs: Iterable<LaneResultRecord>;
  now: number;
  gone: ProcessGone;
  /** Items whose claim is done (landed since). */
  done: ReadonlySet<string>;
}

/** The failures of the last day, newest first, one per item (its latest). */
export function failureViews(o: FailureInput): FailureView[] {
  const latest = new Map<string, { at: number; failure?: FailureView }>();
  const busy = new Set<string>();
  const see = (item: string, at: number, failure?: FailureView) => {
    const was = latest.get(item);
    if (!was || at >= was.at) latest.set(item, failure ? { at, failure } : { at });
  };
  for (const r of o.runs) {
    const standing = runStanding(r, o.now, o.gone).state;
    const holder = formatHolder(r.holder);
    for (const c of r.cycles) {
      const at = c.startedAt + c.durationMs;
      see(c.item, at, cycleFailure(c, { runId: r.runId, holder, at }));
    }
    if (standing === 'running') for (const c of r.current) busy.add(c.item);
    if (standing === 'lost')
      for (const c of r.current)
        see(c.item, r.at, {
          item: c.item,
          runId: r.runId,
          holder,
          at: r.at,
          kind: 'lost',
          what: `its lane stopped${c.phase ? ` in the ${c.phase} phase` : ''} and no longer says how it is (its process is gone or no longer writes its result)`,
          next: [`abcd logs ${r.runId} --item ${c.item}`, `abcd build ${c.item}`],
        });
    if (r.state === 'finished' && r.end === 'budget-exhausted')
      for (const d of r.deferred)
        see(d.item, r.at, {
          item: d.item,
          runId: r.runId,
          holder,
          at: r.at,
          kind: 'budget',
          what: `the budget ran out before it was built: ${d.why}`,
          next: ['abcd budget', `abcd build ${d.item}`],
        });
  }
  return [...latest.entries()]
    .filter(([item, l]) => l.failure && l.at >= o.now - FAILURE_WINDOW_MS && !busy.has(item) && !o.done.has(item))
    .map(([, l]) => l.failure!)
    .sort((a, b) => b.at - a.at || a.item.localeCompare(b.item));
}

/** A cycle that did not land, as a failure; undefined for one that landed or was only deferred. */
export function cycleFailure(c: CycleRecord, run: { runId: string; holder: string; at: number }): FailureView | undefined {
  if (c.outcome === 'landed' || c.outcome === 'deferred') return undefined;
  const base = { item: c.item, ...run };
  const kept = c.kept ? { branch: c.kept.branch } : {};
  const next = [`abcd logs ${run.runId} --item ${c.item}`, `abcd build ${c.item}`];
  const agentLine = lastMeaningful(c.outputTail);
  const said = (line: string | undefined) => (line ? `: ${line}` : '');
  if (c.check || c.code === 'check-failed') {
    const check = c.check ?? checkFromReason(c.reason);
    const line = lastMeaningful(c.checkTail);
    const what = check ? `the check "${check.name}" exited ${check.exitCode}` : 'a land check failed';
    return {
      ...base,
      kind: 'check',
      what: `${what}${said(line)}`,
      ...(check ? { check } : {}),
      ...optional('lastLine', line),
      ...kept,
      next,
    };
  }
  if (c.code === 'conflict' || c.conflictFiles) {
    const files = c.conflictFiles ?? [];
    const what = files.length ? `it conflicts with main in ${files.join(', ')}` : (c.reason ?? 'it conflicts with main');
    return { ...base, kind: 'conflict', what, ...(files.length ? { conflictFiles: files } : {}), ...kept, next };
  }
  if (c.outcome === 'timeout')
    return { ...base, kind: 'timeout', what: `${c.reason ?? 'the agent ran past its timeout'}${said(agentLine)}`, ...kept, next };
  if (c.code === 'agent-failed' && c.exitCode !== undefined && c.exitCode !== 0)
    return {
      ...base,
      kind: 'agent-exit',
      what: `the agent exited ${c.exitCode}${said(agentLine)}`,
      exitCode: c.exitCode,
      ...optional('lastLine', agentLine),
      ...kept,
      next,
    };
  if (c.outcome === 'no-change') return { ...base, kind: 'no-change', what: c.reason ?? 'the agent changed nothing', ...kept, next };
  if (c.outcome === 'cancelled') return { ...base, kind: 'stopped', what: c.reason ?? 'the lane was stopped', ...kept, next };
  const code = c.code ? `${c.code}: ` : '';
  return { ...base, kind: 'other', what: `${code}${c.reason ?? c.outcome}`, ...kept, next };
}

/** The last line of a tail that says something (not abcd's own bracketed lines, not punctuation alone). */
export function lastMeaningful(tail: readonly string[] | undefined): string | undefined {
  return tail
    ?.map((l) => l.trim())
    .findLast((l) => /[A-Za-z0-9]/.test(l) && !l.startsWith('[abcd]') && !/^result( \(\w+\))?: \(no text\)$/.test(l));
}

/** An older writer's check failure, from its reason's words. */
function checkFromReason(reason: string | undefined): { name: string; exitCode: number } | undefined {
  const m = /check "([^"]+)"(?: exited (\d+))?/.exec(reason ?? '');
  return m ? { name: m[1]!, exitCode: m[2] ? Number(m[2]) : 1 } : undefined;
}

function optional<K extends string>(key: K, v: string | undefined): Partial<Record<K, string>> {
  return v ? ({ [key]: v } as Record<K, string>) : {};
}
