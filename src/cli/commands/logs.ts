// `abcd logs`: the full agent and check output of a lane run, as this clone keeps it.
import type { Command } from '../command.js';
import { itemArg } from '../args.js';
import { UsageError } from '../../core/refusals.js';
import { sanitizeText } from '../../core/sanitize.js';
import { shortItem } from '../../records/item.js';

export const logs: Command = {
  command: 'logs <run>',
  describe: "print a lane run's full agent and check output, kept in this clone (--follow: as it runs)",
  refusals: ['git-failed'],
  examples: [
    ['abcd logs 20261201T101500Z-3fa2c1', 'every cycle of that run, in the order the cycles started'],
    ['abcd logs 20261201T1015 --item fix-login', 'a prefix of the id is enough; only the cycles of fix-login'],
    ['abcd logs 20261201T1015 --follow', 'print what the running run prints until it finishes'],
  ],
  builder: (y) =>
    y
      .positional('run', { type: 'string', describe: 'the run id (build and drain print it), or the start of it' })
      .option('item', { type: 'string', describe: "only this item's cycles (a slug or a key)" })
      .option('follow', { type: 'boolean', default: false, describe: 'keep printing until the run finishes or its process is gone' }),
  async run(args, deps) {
    const given = String(args.run ?? '').trim();
    if (given === '') throw new UsageError('say which run: abcd logs <run-id> (build and drain print the id).', 'argument');
    if (args.follow && args.json) throw new UsageError('--follow prints the logs as they come; it has no --json answer.', 'argument');
    const item = args.item !== undefined ? shortItem(itemArg(args.item)) : undefined;
    const read = await import('../../lanes/run-log-read.js');
    const commonDir = await read.logsCommonDir(deps);
    const runId = await read.resolveRun(commonDir, given);
    if (args.follow) {
      const meta = await read.followRun({
        commonDir,
        runId,
        ...(item !== undefined ? { item } : {}),
        write: (t) => deps.out.stdout(sanitizeText(t)),
        sleep: (ms, signal) => deps.clock.sleep(ms, signal),
        ...(deps.signal ? { signal: deps.signal } : {}),
      });
      deps.out.stderr(`abcd: run ${runId} ${meta?.state === 'finished' ? `finished (${meta.end ?? 'ok'})` : 'is no longer running'}\n`);
      return { json: {}, text: '', printed: true };
    }
    const [files, meta] = await Promise.all([read.readRunLogs(commonDir, runId, item), read.readRunMeta(commonDir, runId)]);
    const state = read.runState(meta);
    const text = files.length
      ? files.map((f) => read.cycleHeading(f) + f.text).join('\n')
      : `run ${runId} has no cycle logs${item !== undefined ? ` of ${item}` : ''} (state: ${state ?? 'unknown'})`;
    return {
      json: {
        runId,
        state,
        end: meta?.end ?? null,
        cycles: files.map((f) => ({ cycle: f.cycle, item: f.item, file: f.file, text: f.text })),
      },
      text,
    };
  },
};
