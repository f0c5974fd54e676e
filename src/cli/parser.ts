// The full argument parser: abcd's root options and every verb of the command table, on
// yargs. main.ts runs it; test/speed-fast-path.test.ts checks the fast path against it.
import type { Argv } from 'yargs';
import { UsageError } from '../core/refusals.js';
import { describeEnvironment } from '../core/env.js';
import type { Command, GlobalArgs } from './command.js';
import { commands } from './commands.js';
import { declareArguments, GLOBAL_OPTIONS } from './options.js';
import { describeExits } from './refusal-codes.js';
import { nearestWord } from './nearest-word.js';
import { optionsOf } from './verb-options.js';

export interface ParserOptions {
  /** The verb the call names (its --help and usage errors name it). */
  verb: string | undefined;
  /** `abcd gate`: everything after "--" is its command's. */
  gate: boolean;
  /** Help's width, at most 100 columns. */
  columns: number;
  /** Runs the verb yargs chose, with the arguments it parsed. */
  onVerb(c: Command, args: Record<string, unknown> & GlobalArgs): Promise<void> | void;
}

/** yargs, configured for abcd: parseAsync() on the result runs one verb or refuses the call. */
export function buildParser(y: Argv, o: ParserOptions): Argv {
  let parser: Argv = y
    .scriptName('abcd')
    .usage('abcd <verb> [options]\n\nCoordinate headless agent sessions through records on the shared git remote.')
    .options(GLOBAL_OPTIONS)
    // Only `gate` runs a command after "--". For every other verb an unknown "-x" is an
    // argument, so `abcd reserve -odd` reaches the item check and is refused by name.
    .parserConfiguration(o.gate ? { 'populate--': true } : { 'unknown-options-as-args': true })
    .strict()
    .demandCommand(1, 'name a verb: abcd --help lists them')
    .help()
    .version(false)
    .option('version', { type: 'boolean', describe: "show abcd's version" })
    .epilogue(`${describeExits([])}\nEach verb's --help lists the refusal codes it can give.\n\n${describeEnvironment()}`)
    .wrap(Math.min(100, o.columns))
    .fail((msg, err) => {
      const verb = o.verb;
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
        let b = declareArguments(c, y);
        for (const [ex, what] of c.examples) b = b.example(ex, what);
        return b.epilogue(c.exitsHelp ?? describeExits(c.refusals ?? []));
      },
      (args) => o.onVerb(c, args as unknown as Record<string, unknown> & GlobalArgs),
    );
  }
  return parser;
}

export function nameOf(c: Command): string {
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
    const flags = c ? optionsOf(c) : ['--help', '--version', '--json', '--debug', '--verbose'];
    const first = unknown[1]!.split(', ')[0]!;
    return `${verb ?? 'abcd'} does not take ${unknown[1]}.${first.startsWith('-') ? didYouMean(first.replace(/=.*/, ''), flags) : ''}`;
  }
  return msg;
}

/** " Did you mean ...?" naming the nearest known word, or nothing when none is near. */
export function didYouMean(typed: string, known: readonly string[], prefix = ''): string {
  const near = nearestWord(typed, known);
  return near ? ` Did you mean "${prefix}${near}"?` : '';
}
