// `abcd budget`: this computer's model budget pool for lanes.
import type { Command } from '../command.js';
import { UsageError } from '../../core/refusals.js';
import { formatInstant } from '../render.js';

export const budget: Command = {
  command: 'budget [action] [tokens]',
  describe: "show or set this computer's model budget pool that lanes debit (an empty pool stops new cycles)",
  refusals: ['budget-exhausted', 'deadline', 'record-too-new', 'unsafe-environment', 'record-invalid'],
  examples: [
    ['abcd budget', 'what is left, what was spent and when the pool was set'],
    ['abcd budget set 2000000', 'give lanes on this computer two million tokens from now on'],
  ],
  builder: (y) =>
    y
      .positional('action', { type: 'string', describe: 'set' })
      .positional('tokens', { type: 'string', describe: 'the new pool, a whole number of tokens' }),
  async run(args, deps) {
    if (args.action !== undefined && args.action !== 'set') {
      throw new UsageError(
        `abcd budget knows "set <tokens>" only, not "${String(args.action).slice(0, 40)}": abcd budget set 2000000`,
        'argument',
      );
    }
    if (args.action === 'set' && args.tokens === undefined)
      throw new UsageError('say how many tokens: abcd budget set 2000000', 'argument');
    const [{ budget: run }, { budgetDir }, { systemGateDeps }] = await Promise.all([
      import('../../machine/budget/budget-verb.js'),
      import('../../machine/budget/budget.js'),
      import('../../machine/gate/process.js'),
    ]);
    const r = await run({
      dir: budgetDir(deps.config.machineDir),
      ...(args.action === 'set' ? { set: String(args.tokens) } : {}),
      deps: systemGateDeps(deps.clock, process.pid),
    });
    const s = r.state;
    const text =
      s.pool === null
        ? `no model budget set on this computer: lanes are not limited (${s.spent} tokens counted). Set one with abcd budget set <tokens>.`
        : `${r.changed ? 'set: ' : ''}${s.remaining} of ${s.pool} tokens left, ${s.spent} spent in ${s.debits} cycle(s) since ${formatInstant(s.setAt ?? 0)}` +
          ((s.remaining ?? 0) <= 0 ? '\nused up: no new lane cycle starts until the pool is set again.' : '');
    return {
      json: {
        dir: r.dir,
        pool: s.pool,
        remaining: s.remaining,
        spent: s.spent,
        debits: s.debits,
        setAt: s.setAt === null ? null : formatInstant(s.setAt),
        exhausted: s.remaining !== null && s.remaining <= 0,
        changed: r.changed,
      },
      text,
    };
  },
};
