// `abcd build`: one lane builds one item with an agent and lands it.
import type { Command } from '../command.js';
import { machineGate } from './land.js';
import { durationArg, itemArg, noteArg } from '../args.js';
import { laneFlags, laneOptions, renderLaneRun, runWithLines } from '../lane-args.js';

export const build: Command = {
  command: 'build <item>',
  describe: 'run an agent headless on one item: claim, fresh worktree, sandboxed agent, land through the queue',
  refusals: [
    'not-landed',
    'budget-exhausted',
    'conflict',
    'not-requester',
    'agent-objects-refused',
    'change-too-large',
    'agent-not-found',
    'item-invalid',
    'git-failed',
    'forge-rejected',
    'deadline',
    'fenced',
    'record-too-new',
    'unsafe-environment',
    'remote-unavailable',
    'record-invalid',
    'interrupted',
    'config-unsigned',
  ],
  usesRemote: true,
  examples: [
    ['abcd build fix-login --runtime claude', 'one cycle on fix-login with Claude Code headless, landed when it changed something'],
    [
      `abcd build fix-login --agent './agent.sh "$ABCD_ITEM_FILE"'`,
      "any command, in single quotes: the lane's shell expands $ABCD_ITEM_FILE, not yours",
    ],
    ['abcd build fix-login --reopen', 'build a done item again: the steers left on it are delivered'],
    ['abcd build fix-login --note "also cover logout"', 'while a lane holds it: leave one follow-up request for that lane'],
  ],
  builder: (y) =>
    laneOptions(y)
      .positional('item', { type: 'string', describe: 'a slug (fix-login) or a key' })
      .option('note', { type: 'string', describe: 'a note for the follow-up request (when the item is held)' })
      .option('reopen', { type: 'boolean', default: false, describe: 'build an item that is done again, with the steers waiting on it' })
      .option('wait', { type: 'string', describe: 'when the item is held: wait this long and run after, instead of a pending request' }),
  async run(args, deps) {
    const flags = laneFlags(args);
    const item = itemArg(args.item);
    const [{ openRepo }, { runLane }] = await Promise.all([import('../../repo/repo.js'), import('../../lanes/run/lane-run.js')]);
    const attended = Boolean(args.attended);
    const r = await runWithLines(deps, { json: args.json, attended }, async (quiet, extra) =>
      runLane(await openRepo(quiet), {
        ...flags,
        verb: 'build',
        item,
        attended,
        ...(args.reopen ? { reopen: true } : {}),
        ...(args.note !== undefined ? { note: noteArg(args.note) } : {}),
        ...(args.wait !== undefined ? { waitMs: durationArg(args.wait, '--wait', 0) } : {}),
        gate: await machineGate(quiet),
        ...extra,
      }),
    );
    return renderLaneRun(r, { verbose: args.verbose === true });
  },
};
