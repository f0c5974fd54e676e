// The everyday verbs agents call on every step, read without yargs: only in forms this parser
// reads exactly as yargs would (ADR 0038); anything else goes to the full parser.
import type { Output } from '../core/deps.js';
import type { Command, GlobalArgs } from './command.js';
import { commands } from './commands.js';
import { declareArguments, GLOBAL_OPTIONS } from './options.js';
import { reportFailure } from './report.js';
import { runVerb } from './run-verb.js';
import { terminalSize } from './terminal-size.js';

// The verbs agents call on every step. Anything else, and any argument list the fast parser
// is not certain to read exactly as yargs would, goes to the full parser (ADR 0038).
const FAST_VERBS = new Set(['reserve', 'renew', 'release', 'push', 'status', 'land', 'items', 'announce']);

/** Runs the verb when the fast parser reads `argv` exactly; false: hand it to yargs. */
export async function runFast(argv: readonly string[]): Promise<boolean> {
  const parsed = parseFast(argv);
  if (!parsed) return false;
  const out: Output = {
    stdout: (t: string) => process.stdout.write(t),
    stderr: (t: string) => process.stderr.write(t),
    isTTY: Boolean(process.stdout.isTTY),
    columns: () => (process.stdout.isTTY ? terminalSize(process.stdout).columns : undefined),
    rows: () => (process.stdout.isTTY ? terminalSize(process.stdout).rows : undefined),
  };
  let code: number;
  try {
    code = (await runVerb(parsed.command, parsed.args, out, { commands })) ?? 0;
  } catch (e) {
    code = reportFailure(e, { json: parsed.args.json, debug: parsed.args.debug, out });
  }
  process.exitCode = code;
  return true;
}

interface OptionSpec {
  type?: unknown;
  default?: unknown;
  choices?: readonly unknown[];
  [key: string]: unknown;
}

interface Spec {
  positionals: Map<string, OptionSpec>;
  options: Map<string, OptionSpec>;
  unsupported: boolean;
}

const GLOBAL: ReadonlyArray<[string, OptionSpec]> = Object.entries(GLOBAL_OPTIONS);
// Option keys the fast parser reads as yargs does; any other key (alias, array, coerce,
// demandOption, nargs, count...) sends the call to yargs.
const KNOWN_KEYS = new Set(['type', 'default', 'describe', 'choices']);
// The same for a positional: `array` only on the last, variadic one; a default (which yargs
// fills in when the word is absent) sends the call to yargs.
const POSITIONAL_KEYS = new Set(['type', 'describe', 'choices', 'array']);
// Words yargs may treat as its own commands or flags' values.
const RESERVED = new Set(['help', 'completion', 'version', 'true', 'false']);

/** The verb and its arguments as yargs would hand them to the command, or undefined. */
export function parseFast(argv: readonly string[]): { command: Command; args: Record<string, unknown> & GlobalArgs } | undefined {
  // The verb first, as agents call it; options before the verb go to yargs.
  const verb = argv[0];
  if (verb === undefined || !FAST_VERBS.has(verb)) return undefined;
  const command = commands.find((c) => verbOf(c) === verb);
  const spec = command && specOf(command);
  if (!command || !spec || spec.unsupported) return undefined;
  const options = new Map([...GLOBAL, ...spec.options]);
  const args: Record<string, unknown> = { _: [verb], $0: 'abcd' };
  for (const [name, o] of options) if (o.default !== undefined) setArg(args, name, o.default);
  const positionals: string[] = [];
  const seen = new Set<string>();
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (RESERVED.has(a) || a === '--' || a === '-') return undefined;
    if (!a.startsWith('-')) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
    const o = options.get(name);
    // Short flags, --no-x, repeats, unknown names and option shapes it does not know: yargs.
    if (!a.startsWith('--') || !/^[a-z][a-z-]*$/.test(name) || seen.has(name) || !o) return undefined;
    if (Object.keys(o).some((k) => !KNOWN_KEYS.has(k))) return undefined;
    seen.add(name);
    if (o.type === 'boolean') {
      if (eq >= 0) return undefined;
      setArg(args, name, true);
    } else if (o.type === 'string' || (o.type === undefined && o.choices)) {
      const v = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined || v === '' || v.startsWith('-')) return undefined;
      if (o.choices && !isChoice(o.choices, v)) return undefined;
      setArg(args, name, v);
    } else return undefined;
  }
  const decl = declared(command);
  const last = decl.at(-1);
  const variadic = last?.variadic ? last : undefined;
  // Only a last, required `<name..>` collects the remaining words; any other variadic: yargs.
  if (decl.some((d) => d.variadic && (d !== last || !d.required))) return undefined;
  if ((!variadic && positionals.length > decl.length) || positionals.length < decl.filter((d) => d.required).length) return undefined;
  for (const [i, d] of decl.entries()) {
    const o = spec.positionals.get(d.name)!;
    if (Object.keys(o).some((k) => !POSITIONAL_KEYS.has(k))) return undefined;
    if (d.variadic) {
      // yargs keeps every word of a string array as typed ("42", "1e3", ""): the same array.
      if (o.type !== 'string' || o.array !== true || o.choices) return undefined;
      setArg(args, d.name, positionals.slice(i));
    } else if (i < positionals.length) {
      const v = positionals[i]!;
      if (o.array !== undefined || !(o.type === 'string' || (o.type === undefined && o.choices))) return undefined;
      if (o.choices && !isChoice(o.choices, v)) return undefined;
      setArg(args, d.name, v);
    }
  }
  return { command, args: args as Record<string, unknown> & GlobalArgs };
}

function verbOf(c: Command): string | undefined {
  const first = typeof c.command === 'string' ? c.command : c.command[0];
  return first?.split(' ')[0];
}

interface Declared {
  name: string;
  required: boolean;
  variadic: boolean;
}

/** `<a> [b] <c..>`: the positionals the command string names, in order. */
function declared(c: Command): Declared[] {
  return (typeof c.command === 'string' ? c.command : (c.command[0] ?? ''))
    .split(' ')
    .slice(1)
    .map((d) => ({
      name: d.slice(1, -1).replace(/\.\.$/, ''),
      required: d.startsWith('<'),
      variadic: d.endsWith('..>') || d.endsWith('..]'),
    }));
}

/**
 * One of the declared choices, and a plain word: without a type yargs reads a word that looks
 * like a number (42, 0x10, 1e3) as one, so such a choice is left to it.
 */
function isChoice(choices: readonly unknown[], v: string): boolean {
  return /^[a-z][a-z-]*$/i.test(v) && choices.includes(v);
}

/** Records what a verb declares to yargs (declareArguments, as parser.ts), through a stand-in for yargs. */
export function specOf(c: Command): Spec | undefined {
  const spec: Spec = { positionals: new Map(), options: new Map(), unsupported: false };
  const fake: unknown = new Proxy(
    {},
    {
      get(_t, key) {
        return (...a: unknown[]) => {
          if (key === 'positional') spec.positionals.set(String(a[0]), (a[1] ?? {}) as OptionSpec);
          else if (key === 'option') spec.options.set(String(a[0]), (a[1] ?? {}) as OptionSpec);
          else if (!['example', 'usage', 'epilog', 'epilogue'].includes(String(key))) spec.unsupported = true;
          return fake;
        };
      },
    },
  );
  try {
    declareArguments(c, fake as never);
  } catch {
    // best effort: a builder that does more than declare (reads a value off yargs, calls what
    // the stand-in handed back) throws here; yargs, which runs it for real, takes the call and
    // reports whatever it throws there.
    return undefined;
  }
  // Positionals must be declared in the order the command string names them.
  const names = declared(c).map((d) => d.name);
  if (names.join() !== [...spec.positionals.keys()].join()) return undefined;
  return spec;
}

/** yargs sets both spellings of a kebab-case name. */
function setArg(args: Record<string, unknown>, name: string, value: unknown): void {
  args[name] = value;
  if (name.includes('-')) args[name.replace(/-([a-z])/g, (_m, ch: string) => ch.toUpperCase())] = value;
}
