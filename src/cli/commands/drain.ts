// `abcd drain`: lanes build and land every ready item.
import type { Command } from '../command.js';
import { machineGate } from './land.js';
import { UsageError } from '../../core/refusals.js';
import { laneFlags, laneOptions, renderLaneRun, runWithLines } from '../lane-args.js';

// More lanes than this on one computer is a typo, not a plan.
const MAX_LANES = 64;

export const drain: Command = {
  command: 'drain',
  describe: 'unattended: take the next actionable item (dependencies first), build and land it, again, in N lanes',
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
    ['abcd drain --agent ./scripts/agent.sh --lanes 3', 'one pass over the ready items with three lanes'],
    ['abcd drain --runtime claude', 'one pass with Claude Code (lanes.claude in .abcd/config.json sets its model and tools)'],
    ['abcd drain --lifecycle timed --deadline 50m', 'keep draining until 50 minutes from now (CI)'],
  ],
  builder: (y) => laneOptions(y).option('lanes', { type: 'number', describe: 'lanes in this process (default 1)' }),
  async run(args, deps) {
    const flags = laneFlags(args);
    const lanes = args.lanes;
    if (lanes !== undefined && (!Number.isInteger(lanes) || (lanes as number) < 1 || (lanes as number) > MAX_LANES)) {
      throw new UsageError(`--lanes ${String(lanes)} is not a whole number from 1 to ${MAX_LANES}.`, 'argument');
    }
    const [{ openRepo }, { runLane }] = await Promise.all([import('../../repo/repo.js'), import('../../lanes/run/lane-run.js')]);
    const attended = Boolean(args.attended);
    // A drain's lanes run side by side: their agents' output is never streamed, only their lines.
    const r = await runWithLines(deps, { json: args.json, attended: false }, async (quiet, { onProgress, onWarning }) =>
      runLane(await openRepo(quiet), {
        ...flags,
        ...(lanes !== undefined ? { lanes: lanes as number } : {}),
        verb: 'drain',
        attended,
        gate: await machineGate(quiet),
        ...(onProgress ? { onProgress } : {}),
        ...(onWarning ? { onWarning } : {}),
      }),
    );
    return renderLaneRun(r, { verbose: args.verbose === true });
  },
};
