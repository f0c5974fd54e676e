// The full CLI entry: the yargs parser over the command table, one verb run and reported.
import yargs from 'yargs';
import { UsageError } from '../core/refusals.js';
import { commands } from './commands.js';
import { gateExitOf } from './commands/gate.js';
import { reportFailure } from './report.js';
import { runVerb } from './run-verb.js';
import { version } from './version.js';
import { buildParser, didYouMean, nameOf } from './parser.js';
import { terminalSize } from './terminal-size.js';
import { endQuietlyOnClosedPipe } from './closed-pipe.js';

/** The CLI entry: parse, run one verb, report, exit. The only place that touches process. */
export async function main(argv: readonly string[]): Promise<void> {
  endQuietlyOnClosedPipe();
  // abcd's own options end at "--" (what follows belongs to the command `gate` runs).
  const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  const wantsJson = own.includes('--json');
  const debug = own.includes('--debug');
  const out = {
    stdout: (t: string) => process.stdout.write(t),
    stderr: (t: string) => process.stderr.write(t),
    isTTY: Boolean(process.stdout.isTTY),
    columns: () => (process.stdout.isTTY ? terminalSize(process.stdout).columns : undefined),
    rows: () => (process.stdout.isTTY ? terminalSize(process.stdout).rows : undefined),
  };
  let code = 0;
  const verb = verbOf(own);
  // gate passes its command's status through: its own failures use 124-127 (ADR 0031).
  const gateRuns = verb === 'gate' && !own.includes('--status');
  try {
    if (verb === undefined && own.includes('--version')) {
      out.stdout(`abcd ${version()}\n`);
      return;
    }
    if (verb !== undefined && verb !== 'help' && !commands.some((c) => nameOf(c) === verb)) {
      throw new UsageError(
        `unknown verb "${verb}".${didYouMean(verb, commands.map(nameOf), 'abcd ')} The verbs are: ${commands.map(nameOf).join(', ')}. Run "abcd --help" for what each does.`,
        'verb',
        {
          verb,
          verbs: commands.map(nameOf),
        },
      );
    }
    const isGate = verb === 'gate';
    const args = isGate ? [...argv] : withoutFirstDashDash(argv);
    const parser = buildParser(yargs(args), {
      verb,
      gate: isGate,
      columns: process.stdout.columns || 100,
      onVerb: async (c, parsed) => {
        const exit = await runVerb(c, parsed, out, { commands });
        if (exit !== undefined) code = exit;
      },
    });
    await parser.parseAsync();
  } catch (e) {
    code = reportFailure(e, { json: wantsJson, debug, out, ...(gateRuns ? { exitOf: gateExitOf } : {}) });
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
