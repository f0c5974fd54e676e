// The refusals of the team budget: past the pool, a limit nobody can vouch for, a ledger that
// kept changing, and a reservation another computer settled for this lane.
import { BUDGET_LEDGER_REF, TEAM_BUDGET_REF } from '../../records/refs.js';
import type { BudgetLedgerRecord } from '../../records/team-budget.js';
import { BudgetExhausted, Conflict, Fenced, RecordInvalid } from '../../core/refusals.js';
import { formatUsd } from '../../machine/budget/budget.js';
import { addCounts, poolUsd } from '../../machine/budget/usage.js';
import { exhaustedBy, reserved, type TeamLimit } from './ledger.js';
import type { LimitVerdict } from './limit.js';

/** A reservation as the refusals name it. */
interface Named {
  id: string;
  item: string;
  tokens: number;
}

export function untrustedLimit(ignored: NonNullable<LimitVerdict['ignored']>, signers: string): RecordInvalid {
  const why =
    ignored.why === 'foreign'
      ? 'names another repository'
      : `is ${ignored.why === 'unsigned' ? 'not signed' : 'not signed by a key in ' + signers}`;
  return new RecordInvalid(
    `the team budget on the remote (${ignored.tip.slice(0, 12)}) ${why}, and no earlier generation of it is the person's; ` +
      'no lane cycle starts until the person sets it again (abcd budget set <tokens> --team, signed): a limit nobody can vouch for is no bound.',
    { ref: TEAM_BUDGET_REF, reason: `team-budget-${ignored.why}`, tip: ignored.tip },
  );
}

/** The refusal past the team pool: the same code as the computer's own, with scope "team". */
export function exhausted(ledger: BudgetLedgerRecord, limit: TeamLimit): BudgetExhausted {
  const held = reserved(ledger);
  const out = exhaustedBy(ledger, limit);
  const committed = addCounts(ledger.spent, held.tokens);
  const committedUsd = poolUsd(ledger.spentUsd + held.usd);
  const left = [
    ...(limit.tokens !== null ? [`${Math.max(0, limit.tokens - committed)} of ${limit.tokens} tokens left`] : []),
    ...(limit.usd !== null ? [`$${formatUsd(Math.max(0, limit.usd - committedUsd))} of $${formatUsd(limit.usd)} left`] : []),
  ].join(', ');
  return new BudgetExhausted(
    `the team's model budget on the remote is used up (${left}; ${ledger.spent} tokens and $${formatUsd(ledger.spentUsd)} spent, ` +
      `${held.tokens} tokens held by ${ledger.open.length} cycle(s) in flight on any computer); no new lane cycle starts and nothing ` +
      'was marked done. Ask the person to raise it with "abcd budget set <tokens> --team" (abcd budget --team shows who spent what).',
    {
      dir: BUDGET_LEDGER_REF,
      scope: 'team',
      exhausted: out,
      remaining: limit.tokens === null ? null : Math.max(0, limit.tokens - committed),
      pool: limit.tokens,
      spent: ledger.spent,
      remainingUsd: limit.usd === null ? null : poolUsd(Math.max(0, limit.usd - committedUsd)),
      poolUsd: limit.usd,
      spentUsd: ledger.spentUsd,
      reserved: held.tokens,
      reservedUsd: held.usd,
    },
  );
}

export function contended(tries: number): Conflict {
  return new Conflict(
    `the team budget's ledger (${BUDGET_LEDGER_REF}) changed under every one of ${tries} tries; nothing was written. ` +
      'Other computers write it at the same moment: run again.',
    { ref: BUDGET_LEDGER_REF },
  );
}

export function settledElsewhere(held: Named, wasCutOff: boolean): Fenced {
  return new Fenced(
    `this cycle's team budget reservation ${held.id} (${held.tokens} tokens for ${held.item}) is no longer open on the remote: ` +
      `another computer settled it at the amount reserved once it was past its expiry${wasCutOff ? ' while this one could not reach the remote' : ''}. ` +
      'Nothing more was counted for it; this lane stops. abcd status shows who holds the item now.',
    { item: held.item, ref: BUDGET_LEDGER_REF },
  );
}
