// The entry bin/abcd loads: help texts and the version straight from files, everyday verbs
// parsed without yargs (fast-verbs.ts), the rest handed to it. It imports almost nothing, so
// `abcd --help` costs little more than Node's own start.
import { readFileSync } from 'node:fs';
import { version } from './version.js';
import { endQuietlyOnClosedPipe } from './closed-pipe.js';

/** The CLI entry bin/abcd loads: a verb it can read runs without loading yargs at all. */
export async function main(argv: readonly string[]): Promise<void> {
  endQuietlyOnClosedPipe();
  // The texts yargs would print, without loading it.
  const text = argv.length === 1 && argv[0] === '--version' ? `abcd ${version()}\n` : helpText(argv);
  if (text !== undefined) {
    process.stdout.write(text);
    return;
  }
  const { runFast } = await import('./fast-verbs.js');
  if (await runFast(argv)) return;
  const full = await import('./main.js');
  return full.main(argv);
}

/**
 * `abcd --help` or `abcd <verb> --help` as the build rendered it (scripts/help-texts.mjs), when
 * yargs would print exactly that: at its full width of 100 columns (a pipe, or a terminal at
 * least that wide). Anything else, or a checkout built before the texts existed: undefined.
 */
export function helpText(argv: readonly string[], columns = process.stdout.isTTY ? process.stdout.columns : undefined): string | undefined {
  const verb = argv.length === 1 && argv[0] === '--help' ? '' : argv.length === 2 && argv[1] === '--help' ? argv[0]! : undefined;
  if (verb === undefined || verb.startsWith('-') || (columns !== undefined && columns < 100)) return undefined;
  const file = builtTexts();
  if (file === undefined) return undefined;
  let texts: unknown;
  try {
    texts = JSON.parse(file);
  } catch {
    return undefined; // a single parse: the built help texts
  }
  const text =
    typeof texts === 'object' && texts !== null && Object.hasOwn(texts, verb) ? (texts as Record<string, unknown>)[verb] : undefined;
  return typeof text === 'string' ? text : undefined;
}

/** The help texts the build wrote; undefined in a checkout built before they existed. */
function builtTexts(): string | undefined {
  try {
    return readFileSync(new URL('help-texts.json', import.meta.url), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
