// What `abcd budget` prints and answers: the pool (tokens, dollars or both) and the last
// day's spend per runtime and per item.
import type { BudgetResult } from '../machine/budget/budget-verb.js';
import { exhaustedKinds, formatUsd } from '../machine/budget/budget.js';
import type { SpendTotal } from '../machine/budget/spend-log.js';
import { sanitizeLine } from '../core/sanitize.js';
import { formatInstant, jsonInstant } from './render.js';

// The text lists this many items; --json has them all.
const ITEMS_SHOWN = 20;

export function budgetJson(r: BudgetResult): Record<string, unknown> {
  const s = r.state;
  const d = r.spend;
  return {
    dir: r.dir,
    pool: s.pool,
    remaining: s.remaining,
    spent: s.spent,
    poolUsd: s.poolUsd,
    remainingUsd: s.remainingUsd,
    spentUsd: s.spentUsd,
    debits: s.debits,
    setAt: s.setAt === null ? null : jsonInstant(s.setAt),
    exhausted: exhaustedKinds(s).length > 0,
    exhaustedBy: exhaustedKinds(s),
    changed: r.changed,
    lastDay: {
      since: jsonInstant(d.since),
      debits: d.debits,
      tokens: d.tokens,
      usd: d.usd,
      byRuntime: d.byRuntime,
      byItem: d.byItem,
      ignoredLines: d.ignored,
    },
  };
}

export function budgetText(r: BudgetResult): string {
  const s = r.state;
  const lines: string[] = [];
  if (s.pool === null && s.poolUsd === null) {
    lines.push(
      `no model budget set on this computer: lanes are not limited (${s.spent} tokens, $${formatUsd(s.spentUsd)} counted). ` +
        'Set one with abcd budget set <tokens> or abcd budget set --usd <dollars>.',
    );
  } else {
    const left = [
      s.pool === null ? 'no token limit' : `${s.remaining} of ${s.pool} tokens left`,
      s.poolUsd === null ? 'no dollar limit' : `$${formatUsd(s.remainingUsd ?? 0)} of $${formatUsd(s.poolUsd)} left`,
    ];
    lines.push(
      `${r.changed ? 'set: ' : ''}${left.join(', ')}; ${s.spent} tokens and $${formatUsd(s.spentUsd)} spent in ${s.debits} cycle(s) since ${formatInstant(s.setAt ?? 0)}`,
    );
    const out = exhaustedKinds(s);
    if (out.length > 0)
      lines.push(
        `used up (${out.map((k) => (k === 'usd' ? 'dollars' : k)).join(' and ')}): no new lane cycle starts until the pool is set again.`,
      );
  }
  const d = r.spend;
  if (d.debits === 0) lines.push('last day: nothing spent.');
  else {
    lines.push(`last day (since ${formatInstant(d.since)}): ${total(d)}`);
    lines.push(`  per runtime: ${d.byRuntime.map((t) => `${sanitizeLine(t.runtime, 40)} ${total(t)}`).join('; ')}`);
    lines.push('  per item:');
    for (const t of d.byItem.slice(0, ITEMS_SHOWN)) lines.push(`    ${sanitizeLine(t.item, 100)}  ${total(t)}`);
    if (d.byItem.length > ITEMS_SHOWN) lines.push(`    and ${d.byItem.length - ITEMS_SHOWN} more (abcd budget --json lists them all)`);
  }
  if (d.ignored > 0) lines.push(`${d.ignored} line(s) of the spend log could not be read; the next debit drops them.`);
  return lines.join('\n');
}

function total(t: SpendTotal): string {
  return `${t.tokens} tokens, $${formatUsd(t.usd)} in ${t.debits} cycle(s)`;
}
