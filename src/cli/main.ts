import { fileURLToPath } from 'node:url';
import yargs from 'yargs';
import type { Argv } from 'yargs';
import { systemClock, type Deps } from '../deps.js';
import { UsageError } from '../refusals.js';
import { commands } from './commands.js';
import type { GlobalArgs } from './command.js';
import { reportFailure, reportResult } from './report.js';
import { envConfig } from './env-config.js';
import { describeEnvironment } from '../config/env.js';

/** The CLI entry: parse, run one verb, report, exit. The only place that touches process. */
export async function main(argv: readonly string[]): Promise<void> {
  // abcd's own options end at "--" (what follows belongs to the command `gate` runs).
  const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  const wantsJson = own.includes('--json');
  const debug = own.includes('--debug');
  const out = {
    stdout: (t: string) => process.stdout.write(t),
    stderr: (t: string) => process.stderr.write(t),
    isTTY: Boolean(process.stdout.isTTY),
  };
  let code = 0;
  try {
    const isGate = verbOf(own) === 'gate';
    const args = isGate ? [...argv] : withoutFirstDashDash(argv);
    let parser: Argv = yargs(args)
      .scriptName('abcd')
      .usage('abcd <verb> [options]\n\nCoordinate headless agent sessions through records on the shared git remote.')
      .option('json', { type: 'boolean', default: false, describe: 'one JSON object on stdout' })
      .option('debug', { type: 'boolean', default: false, describe: 'show stacks of internal errors' })
      .option('remote', { type: 'string', default: 'origin', describe: 'the shared git remote' })
      // Only `gate` runs a command after "--". For every other verb an unknown "-x" is an
      // argument, so `abcd reserve -odd` reaches the item check and is refused by name.
      .parserConfiguration(isGate ? { 'populate--': true } : { 'unknown-options-as-args': true })
      .strict()
      .demandCommand(1, 'name a verb: abcd --help lists them')
      .recommendCommands()
      .help()
      .epilogue(describeEnvironment())
      .version(false)
      .wrap(Math.min(100, process.stdout.columns || 100))
      .fail((msg, err) => {
        throw err ?? new UsageError(`${msg}\nRun "abcd --help" or "abcd <verb> --help" for usage.`);
      });
    for (const c of commands) {
      parser = parser.command(
        c.command as string,
        c.describe,
        (y) => {
          let b = c.builder(y);
          for (const [ex, what] of c.examples) b = b.example(ex, what);
          return b;
        },
        async (args) => {
          const g = args as unknown as Record<string, unknown> & GlobalArgs;
          const self = { node: process.execPath, script: fileURLToPath(new URL('../../bin/abcd', import.meta.url)) };
          const deps: Deps = { cwd: process.cwd(), env: process.env, config: envConfig(process.env), clock: systemClock, out, remote: g.remote, self, signal: stopSignal() };
          const result = await c.run(g, deps);
          reportResult(result, { json: g.json, out });
          if (result.exitCode !== undefined) code = result.exitCode;
        },
      );
    }
    await parser.parseAsync();
  } catch (e) {
    code = reportFailure(e, { json: wantsJson, debug, out });
  }
  process.exitCode = code;
}

function withoutFirstDashDash(argv: readonly string[]): string[] {
  const i = argv.indexOf('--');
  return i < 0 ? [...argv] : [...argv.slice(0, i), ...argv.slice(i + 1)];
}

/** The verb: the first word that is neither an option nor the value of --remote. */
function verbOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--remote') i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

// How long a stopped verb may take to undo its work (leave the land queue, remove a worktree).
const STOP_GRACE_MS = 5000;

/**
 * Turns SIGINT/SIGTERM into an abort the verb can act on (land leaves the queue instead of
 * blocking it until its claim lapses). A verb that does not finish within the grace, or a
 * second signal, ends the process.
 */
function stopSignal(): AbortSignal {
  const ac = new AbortController();
  const stop = () => {
    if (ac.signal.aborted) process.exit(130);
    ac.abort();
    setTimeout(() => process.exit(130), STOP_GRACE_MS).unref();
  };
  process.on('SIGINT', stop).on('SIGTERM', stop);
  return ac.signal;
}
