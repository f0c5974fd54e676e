// What `abcd budget --team` prints and answers: the team's pool on the remote, what is spent
// and what cycles in flight hold reserved, by machine, runtime and item.
import type { TeamBudgetView } from '../lanes/team-budget/view.js';
import type { SpendRow } from '../records/team-budget.js';
import { formatUsd } from '../machine/budget/budget.js';
import { sanitizeLine } from '../core/sanitize.js';
import { formatInstant, jsonInstant } from './render.js';

// The text lists this many rows per breakdown; --json has them all.
const ROWS_SHOWN = 10;

export function teamBudgetJson(v: TeamBudgetView, changed: boolean): Record<string, unknown> {
  return {
    team: true,
    limit: v.limit && { ...v.limit, at: jsonInstant(v.limit.at) },
    protected: v.protected,
    signers: v.signers,
    ...(v.ignored ? { ignored: v.ignored } : {}),
    spent: v.spent,
    spentUsd: v.spentUsd,
    reserved: v.reserved,
    remaining: v.remaining,
    remainingUsd: v.remainingUsd,
    exhausted: v.exhaustedBy.length > 0,
    exhaustedBy: v.exhaustedBy,
    settled: v.settled,
    expired: v.expired,
    settledNow: v.settledNow,
    open: v.open.map((r) => ({ ...r, at: jsonInstant(r.at), expiresAt: jsonInstant(r.expiresAt) })),
    byMachine: v.byMachine,
    byRuntime: v.byRuntime,
    byItem: v.byItem,
    changed,
  };
}

export function teamBudgetText(v: TeamBudgetView, changed: boolean): string {
  const lines: string[] = [];
  if (v.ignored) {
    lines.push(
      `the team budget on the remote (${v.ignored.tip.slice(0, 12)}) is ignored: it is ${v.ignored.why === 'foreign' ? 'for another repository' : `${v.ignored.why} by a key in ${v.signers}`}.`,
    );
  }
  if (!v.limit) {
    lines.push(
      "no team budget on the remote: lanes are bounded by each computer's own pool only. Set one with abcd budget set <tokens> --team.",
    );
    if (v.spent === 0 && v.open.length === 0) return lines.join('\n');
  } else {
    const l = v.limit;
    const left = [
      l.tokens === null ? 'no token limit' : `${v.remaining} of ${l.tokens} tokens left`,
      l.usd === null ? 'no dollar limit' : `$${formatUsd(v.remainingUsd ?? 0)} of $${formatUsd(l.usd)} left`,
    ];
    lines.push(
      `${changed ? 'set (signed): ' : ''}team pool: ${left.join(', ')}; set by ${sanitizeLine(l.by, 200)} at ${formatInstant(l.at)}` +
        `${v.protected ? '' : ` (unprotected: no allowed-signers list at ${v.signers})`}`,
    );
  }
  lines.push(
    `spent ${v.spent} tokens, $${formatUsd(v.spentUsd)} in ${v.settled + v.expired} cycle(s)` +
      `${v.expired ? ` (${v.expired} settled at the amount reserved: their lanes never settled them)` : ''}; ` +
      `reserved ${v.reserved.tokens} tokens by ${v.open.length} cycle(s) in flight`,
  );
  if (v.settledNow) lines.push(`settled now at the amount reserved: ${v.settledNow} reservation(s) past expiry whose lanes are gone.`);
  if (v.exhaustedBy.length) lines.push('used up: no new lane cycle starts on any computer until the person raises it.');
  for (const r of v.open.slice(0, ROWS_SHOWN)) {
    lines.push(
      `  in flight: ${sanitizeLine(r.item, 100)} on ${sanitizeLine(r.machine, 100)} (${sanitizeLine(r.runtime, 40)}) holds ${r.tokens} tokens until ${formatInstant(r.expiresAt)}`,
    );
  }
  for (const [name, rows] of [
    ['per machine', v.byMachine],
    ['per runtime', v.byRuntime],
    ['per item', v.byItem],
  ] as const) {
    if (rows.length)
      lines.push(
        `  ${name}: ${rows.slice(0, ROWS_SHOWN).map(row).join('; ')}${rows.length > ROWS_SHOWN ? `; and ${rows.length - ROWS_SHOWN} more` : ''}`,
      );
  }
  return lines.join('\n');
}

function row(r: SpendRow): string {
  return `${sanitizeLine(r.name, 100)} ${r.tokens} tokens, $${formatUsd(r.usd)} in ${r.cycles} cycle(s)`;
}
