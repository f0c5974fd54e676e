// `abcd logs`: the full agent and check output of a lane run, as this clone keeps it.
import type { Command } from '../command.js';
import { itemArg } from '../args.js';
import { UsageError } from '../../core/refusals.js';
import { sanitizeText } from '../../core/sanitize.js';
import { shortItem } from '../../records/item.js';

export const logs: Command = {
  command: 'logs [run]',
  describe: "a lane run's agent and check output as a transcript, kept in this clone (no run: the latest; --raw: as written)",
  refusals: ['git-failed'],
  examples: [
    ['abcd logs', "this clone's latest run: prompts, tool calls, the agent's text, steers, checks and results"],
    ['abcd logs 20261201T101500Z-3fa2c1', 'every cycle of that run, in the order the cycles started'],
    ['abcd logs 20261201T1015 --raw', "what the runtime wrote (Claude Code's or Codex's JSON stream) and the checks printed"],
    ['abcd logs 20261201T1015 --item fix-login', 'a prefix of the id is enough; only the cycles of fix-login'],
    ['abcd logs 20261201T1015 --follow', 'print what the running run prints until it finishes'],
  ],
  builder: (y) =>
    y
      .positional('run', {
        type: 'string',
        describe: "the run id (build and drain print it), or the start of it; absent: this clone's latest",
      })
      .option('raw', { type: 'boolean', default: false, describe: 'print what the runtime wrote, not the transcript' })
      .option('item', { type: 'string', describe: "only this item's cycles (a slug or a key)" })
      .option('follow', { type: 'boolean', default: false, describe: 'keep printing until the run finishes or its process is gone' }),
  async run(args, deps) {
    const given = String(args.run ?? '').trim();
    if (args.follow && args.json) throw new UsageError('--follow prints the logs as they come; it has no --json answer.', 'argument');
    const item = args.item !== undefined ? shortItem(itemArg(args.item)) : undefined;
    const read = await import('../../lanes/logs/run-log-read.js');
    const commonDir = await read.logsCommonDir(deps);
    const runId = given === '' ? await read.latestRun(commonDir) : await read.resolveRun(commonDir, given);
    const raw = args.raw === true;
    if (args.follow) {
      const meta = await read.followRun({
        commonDir,
        runId,
        ...(item !== undefined ? { item } : {}),
        write: (t) => deps.out.stdout(sanitizeText(t)),
        raw,
        sleep: (ms, signal) => deps.clock.sleep(ms, signal),
        ...(deps.signal ? { signal: deps.signal } : {}),
      });
      deps.out.stderr(`abcd: run ${runId} ${meta?.state === 'finished' ? `finished (${meta.end ?? 'ok'})` : 'is no longer running'}\n`);
      return { json: {}, text: '', printed: true };
    }
    const [files, meta] = await Promise.all([read.readRunLogs(commonDir, runId, item), read.readRunMeta(commonDir, runId)]);
    const state = read.runState(meta);
    const text = files.length
      ? files.map((f) => read.cycleHeading(f) + (raw ? f.text : f.transcript)).join('\n')
      : `run ${runId} has no cycle logs${item !== undefined ? ` of ${item}` : ''} (state: ${state ?? 'unknown'})`;
    return {
      json: {
        runId,
        state,
        end: meta?.end ?? null,
        cycles: files.map((f) => ({ cycle: f.cycle, item: f.item, file: f.file, text: f.text, transcript: f.transcript })),
      },
      text,
    };
  },
};
