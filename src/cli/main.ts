import yargs from 'yargs';
import type { Argv } from 'yargs';
import { UsageError } from '../core/refusals.js';
import { commands } from './commands.js';
import type { Command, GlobalArgs } from './command.js';
import { gateExitOf } from './commands/gate.js';
import { describeExits } from './refusal-codes.js';
import { reportFailure } from './report.js';
import { runVerb } from './run-verb.js';
import { version } from './version.js';
import { terminalSize } from './terminal-size.js';
import { endQuietlyOnClosedPipe } from './closed-pipe.js';
import { describeEnvironment } from '../core/env.js';
import { nearestWord } from './nearest-word.js';
import { optionsOf } from './verb-options.js';

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
    let parser: Argv = yargs(args)
      .scriptName('abcd')
      .usage('abcd <verb> [options]\n\nCoordinate headless agent sessions through records on the shared git remote.')
      .option('json', { type: 'boolean', default: false, describe: 'one JSON object on stdout' })
      .option('debug', { type: 'boolean', default: false, describe: 'show stacks of internal errors' })
      // Only `gate` runs a command after "--". For every other verb an unknown "-x" is an
      // argument, so `abcd reserve -odd` reaches the item check and is refused by name.
      .parserConfiguration(isGate ? { 'populate--': true } : { 'unknown-options-as-args': true })
      .strict()
      .demandCommand(1, 'name a verb: abcd --help lists them')
      .help()
      .version(false)
      .option('version', { type: 'boolean', describe: "show abcd's version" })
      .epilogue(`${describeExits([])}\nEach verb's --help lists the refusal codes it can give.\n\n${describeEnvironment()}`)
      .wrap(Math.min(100, process.stdout.columns || 100))
      .fail((msg, err) => {
        throw (
          err ??
          new UsageError(`${ownWords(msg, verb)}\nRun "abcd ${verb && verb !== 'help' ? `${verb} ` : ''}--help" for usage.`, 'argument')
        );
      });
    for (const c of commands) {
      parser = parser.command(
        c.command as string,
        c.describe,
        (y) => {
          let b = c.builder(y);
          if (c.usesRemote) b = b.option('remote', { type: 'string', default: 'origin', describe: 'the shared git remote' });
          for (const [ex, what] of c.examples) b = b.example(ex, what);
          return b.epilogue(c.exitsHelp ?? describeExits(c.refusals ?? []));
        },
        async (args) => {
          const exit = await runVerb(c, args as unknown as Record<string, unknown> & GlobalArgs, out, { commands });
          if (exit !== undefined) code = exit;
        },
      );
    }
    await parser.parseAsync();
  } catch (e) {
    code = reportFailure(e, { json: wantsJson, debug, out, ...(gateRuns ? { exitOf: gateExitOf } : {}) });
  }
  process.exitCode = code;
}

function nameOf(c: Command): string {
  return String(c.command).split(' ')[0]!;
}

/** The parser's complaint in abcd's words: which positional is missing, which option is unknown. */
function ownWords(msg: string, verb: string | undefined): string {
  const c = commands.find((x) => nameOf(x) === verb);
  const missing = /^Not enough non-option arguments: got (\d+), need at least (\d+)/.exec(msg);
  if (c && missing) {
    const required = String(c.command)
      .split(' ')
      .filter((w) => w.startsWith('<'));
    const absent = required.slice(Number(missing[1]));
    return `${verb} needs ${absent.join(' and ')} (usage: abcd ${c.command})`;
  }
  const unknown = /^Unknown arguments?: (.*)$/.exec(msg);
  if (unknown) {
    const flags = c ? optionsOf(c) : ['--help', '--version', '--json', '--debug'];
    const first = unknown[1]!.split(', ')[0]!;
    return `${verb ?? 'abcd'} does not take ${unknown[1]}.${first.startsWith('-') ? didYouMean(first.replace(/=.*/, ''), flags) : ''}`;
  }
  return msg;
}

/** " Did you mean ...?" naming the nearest known word, or nothing when none is near. */
function didYouMean(typed: string, known: readonly string[], prefix = ''): string {
  const near = nearestWord(typed, known);
  return near ? ` Did you mean "${prefix}${near}"?` : '';
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
