// Renders every --help text abcd's parser prints (abcd --help and each verb's) once, at build
// time, into dist/bundle/help-texts.json: `abcd --help` then prints it without loading yargs
// and the command tree (ADR 0044). The texts come from the built parser itself, so they are
// what yargs prints at the default width of 100 columns (a pipe, or a terminal that wide).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';

const bundle = new URL('../dist/bundle/', import.meta.url);
// One process per text: yargs ends the process once it printed a help.
/** @type {(args: string[]) => Promise<string>} */
const render = async (args) =>
  (
    await promisify(execFile)(
      process.execPath,
      ['-e', `import(${JSON.stringify(new URL('main.js', bundle).href)}).then((m) => m.main(${JSON.stringify(args)}))`],
      {
        encoding: 'utf8',
        // Nothing from this machine's environment may shape the texts.
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      },
    )
  ).stdout;
// The built parser, typed by the sources it was built from.
const { commands } = /** @type {typeof import('../src/cli/commands.js')} */ (
  await import(new URL('../dist/cli/commands.js', import.meta.url).href)
);
/** @type {(c: (typeof commands)[number]) => string} */
const verbOf = (c) => String(Array.isArray(c.command) ? c.command[0] : c.command).split(' ')[0] ?? '';
const verbs = ['', ...commands.map(verbOf)];
const rendered = await Promise.all(verbs.map((v) => render(v ? [v, '--help'] : ['--help'])));
const texts = Object.fromEntries(verbs.map((v, i) => [v, rendered[i]]));
writeFileSync(new URL('help-texts.json', bundle), JSON.stringify(texts));
