// `abcd budget`: this computer's model budget pool for lanes, and the last day's spend; with
// --team, the team's pool on the remote that every computer's lanes reserve from.
import type { Command } from '../command.js';
import type { Deps } from '../../core/deps.js';
import { UsageError } from '../../core/refusals.js';

export const budget: Command = {
  command: 'budget [action] [tokens]',
  describe:
    "show or set this computer's model budget pool that lanes debit (an empty pool stops new cycles), and the last day's spend; " +
    "--team: the team's pool on the remote",
  refusals: [
    'budget-exhausted',
    'deadline',
    'record-too-new',
    'unsafe-environment',
    'record-invalid',
    'conflict',
    'remote-unavailable',
    'git-failed',
    'forge-rejected',
  ],
  usesRemote: true,
  examples: [
    ['abcd budget', "what is left, what was spent, and the last day's spend per runtime and per item"],
    ['abcd budget set 2000000', 'give lanes on this computer two million tokens from now on'],
    ['abcd budget set 2000000 --usd 25', 'two million tokens or 25 dollars, whichever runs out first'],
    ['abcd budget set 20000000 --team', "the team's pool on the remote, signed: every lane on every computer reserves from it"],
    ['abcd budget --team', "the team's pool: spent and reserved, by machine, runtime and item"],
  ],
  builder: (y) =>
    y
      .positional('action', { type: 'string', describe: 'set' })
      .positional('tokens', { type: 'string', describe: 'the new pool, a whole number of tokens' })
      .option('usd', { type: 'string', describe: 'with set: the new pool in dollars (e.g. 25 or 12.50)' })
      .option('team', { type: 'boolean', describe: "the team's pool on the remote (set: signed by you, bound to this repository)" }),
  async run(args, deps) {
    if (args.action !== undefined && args.action !== 'set') {
      throw new UsageError(
        `abcd budget knows "set <tokens>" only, not "${String(args.action).slice(0, 40)}": abcd budget set 2000000`,
        'argument',
      );
    }
    const usd = args.usd === undefined ? undefined : String(args.usd);
    if (args.action === undefined && usd !== undefined) throw new UsageError('--usd goes with set: abcd budget set --usd 25', 'argument');
    if (args.action === 'set' && args.tokens === undefined && usd === undefined)
      throw new UsageError('say how many tokens or dollars: abcd budget set 2000000, or abcd budget set --usd 25', 'argument');
    const set =
      args.action === 'set'
        ? { ...(args.tokens !== undefined ? { tokens: String(args.tokens) } : {}), ...(usd !== undefined ? { usd } : {}) }
        : undefined;
    if (args.team) return runTeam(deps, set);
    const [{ budget: run }, { budgetDir }, { systemGateDeps }, { budgetJson, budgetText }] = await Promise.all([
      import('../../machine/budget/budget-verb.js'),
      import('../../machine/budget/budget.js'),
      import('../../machine/gate/process.js'),
      import('../budget-text.js'),
    ]);
    const r = await run({
      dir: budgetDir(deps.config.machineDir),
      ...(set ? { set } : {}),
      deps: systemGateDeps(deps.clock, process.pid),
    });
    return { json: budgetJson(r), text: budgetText(r) };
  },
};

async function runTeam(deps: Deps, set: { tokens?: string; usd?: string } | undefined) {
  const [{ openRepo }, { parseTokens, parseUsd }, { setTeamBudget }, { teamBudgetView }, { teamBudgetJson, teamBudgetText }] =
    await Promise.all([
      import('../../repo/repo.js'),
      import('../../machine/budget/budget-verb.js'),
      import('../../lanes/team-budget/set.js'),
      import('../../lanes/team-budget/view.js'),
      import('../team-budget-text.js'),
    ]);
  const size = set && {
    ...(set.tokens !== undefined ? { tokens: parseTokens(set.tokens) } : {}),
    ...(set.usd !== undefined ? { usd: parseUsd(set.usd) } : {}),
  };
  const repo = await openRepo(deps);
  if (size) await setTeamBudget(repo, size);
  const view = await teamBudgetView(repo);
  return { json: teamBudgetJson(view, Boolean(size)), text: teamBudgetText(view, Boolean(size)) };
}
