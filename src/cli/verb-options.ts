// The options a verb takes, spelled as a person types them (`--watch`), read from its builder:
// completion offers them and a mistyped one is matched against them.
import yargs from 'yargs';
import type { Command } from './command.js';

/** The verb's builder's options, plus the ones every verb takes; never its positionals. */
export function optionsOf(c: Command): string[] {
  const declared = Object.keys((c.builder(yargs([])) as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key);
  const positionals = new Set(
    String(c.command)
      .split(' ')
      .slice(1)
      .map((w) => w.replace(/[<>[\].]/g, '')),
  );
  return (
    [...new Set([...declared, 'json', 'help', ...(c.usesRemote ? ['remote'] : [])])]
      .filter((o) => !positionals.has(o))
      // yargs also lists camelCase aliases and its own keys: offer only the spelled-out options.
      .filter((o) => o.length > 1 && !/[A-Z]/.test(o) && o !== 'version' && o !== '$0')
      .map((o) => `--${o}`)
  );
}
