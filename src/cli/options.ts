// abcd's own options and how a verb's arguments are declared, once: the yargs parser
// (parser.ts) and the fast path (fast-verbs.ts) both read a verb's arguments through here.
// No yargs at run time: the fast path must load without it.
import type { Argv, Options } from 'yargs';
import type { Command } from './command.js';

/** Every verb takes these. */
export const GLOBAL_OPTIONS = {
  json: { type: 'boolean', default: false, describe: 'one JSON object on stdout' },
  debug: { type: 'boolean', default: false, describe: 'show stacks of internal errors' },
  verbose: {
    type: 'boolean',
    default: false,
    describe: "also lines not about this command's outcome (prune counts, checks that do not apply)",
  },
} as const satisfies Record<string, Options>;

/** A verb that talks to the shared remote (Command.usesRemote) takes this too. */
export const REMOTE_OPTION = { type: 'string', default: 'origin', describe: 'the shared git remote' } as const satisfies Options;

/** A verb's arguments: its own builder, then --remote where it talks to the remote. */
export function declareArguments(c: Command, y: Argv): Argv {
  const own = c.builder(y);
  return c.usesRemote ? own.option('remote', REMOTE_OPTION) : own;
}
