// The --json contract, checked on every answer the suite sees: runAbcd passes each one here, so
// a verb whose answer drifts from the schema `abcd schema <verb>` publishes fails whichever test
// ran it, not only the test written about shapes. The schema is the one the built abcd prints,
// read back into zod (the same library that made it), so what is checked is what is published.
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { REFUSALS } from '../../src/core/refusal-table.js';

const BIN = resolve(import.meta.dirname, '../../bin/abcd');

type JsonSchema = Parameters<typeof z.fromJSONSchema>[0];

let printed: Record<string, JsonSchema> | undefined;
const converted = new Map<string, z.ZodType>();

/**
 * What `abcd schema` prints, read once per test file: from the run's folder (global-setup.ts)
 * when an earlier file of the run wrote it there, else from the built abcd, then kept there.
 */
function printedSchemas(): Record<string, JsonSchema> {
  if (printed) return printed;
  const runDir = process.env.ABCD_TEST_RUN_DIR;
  const kept = runDir && join(runDir, 'schema.json');
  let text: string | undefined;
  if (kept) {
    try {
      text = readFileSync(kept, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  if (text === undefined) {
    text = execFileSync(process.execPath, [BIN, 'schema'], { encoding: 'utf8' });
    if (kept) {
      // Whole or not at all for a file reading it at once: written aside, then renamed.
      writeFileSync(`${kept}.${process.pid}`, text);
      renameSync(`${kept}.${process.pid}`, kept);
    }
  }
  printed = JSON.parse(text) as Record<string, JsonSchema>;
  return printed;
}

/** One verb's published answer schema, read back into zod when first asked for. */
function publishedSchema(verb: string): z.ZodType | undefined {
  const known = converted.get(verb);
  if (known) return known;
  const all = printedSchemas();
  if (!Object.hasOwn(all, verb)) return undefined;
  const schema = z.fromJSONSchema(all[verb]!);
  converted.set(verb, schema);
  return schema;
}

/** Every verb's published answer schema, as `abcd schema` prints it. */
export function publishedSchemas(): Map<string, z.ZodType> {
  return new Map(Object.keys(printedSchemas()).map((verb) => [verb, publishedSchema(verb)!]));
}

/** A refusal of a verb abcd does not know (a typo on the command line): usage, and only that. */
const UNKNOWN_VERB = z.strictObject({
  ok: z.literal(false),
  refusal: z.strictObject({ code: z.literal('usage'), exit: z.literal(2), message: z.string(), data: z.record(z.string(), z.unknown()) }),
});

// Options that take a value and may come before the verb: their value is not the verb.
const VALUE_OPTIONS = new Set(['--remote']);

/** The verb an abcd command line runs: its first word that is no option (or an option's value). */
export function verbOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return undefined;
    if (VALUE_OPTIONS.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

/** Why a --json answer breaks the contract of the verb that gave it; undefined when it keeps it. */
export function contractBreach(args: readonly string[], exitCode: number, json: unknown): string | undefined {
  const verb = verbOf(args);
  const answer = json as { ok?: unknown; refusal?: { exit?: unknown } } | undefined;
  if (!answer || typeof answer !== 'object' || typeof answer.ok !== 'boolean') return `the answer has no boolean "ok"`;
  const schema = verb === undefined ? undefined : publishedSchema(verb);
  const parsed = (schema ?? UNKNOWN_VERB).safeParse(json);
  if (!parsed.success) return `not in the schema \`abcd schema ${verb ?? ''}\` publishes: ${parsed.error.message}`;
  if (answer.ok === false && answer.refusal?.exit !== exitCode)
    return `refusal.exit ${String(answer.refusal?.exit)} but the process exited ${exitCode}`;
  if (answer.ok === false) {
    const missing = namedDataMissing(answer.refusal as { code: string; data: Record<string, unknown> });
    if (missing.length)
      return `what to do with ${(answer.refusal as { code: string }).code} names ${missing.join(', ')}, which its data lacks`;
  }
  // gate passes its command's exit status through with ok:true; every other success exits 0.
  if (answer.ok === true && exitCode !== 0 && verb !== 'gate') return `ok:true but the process exited ${exitCode}`;
  return undefined;
}

/** The `data.<key>` a refusal's row tells an agent to read (abcd prime prints it) that this answer lacks. */
function namedDataMissing(refusal: { code: string; data: Record<string, unknown> }): string[] {
  const row = (REFUSALS as Record<string, { means: string; todo: string }>)[refusal.code];
  if (!row) return [];
  const named = [...`${row.means} ${row.todo}`.matchAll(/\bdata\.([A-Za-z]\w*)/g)].map((m) => m[1]!);
  return named.filter((k) => !(k in refusal.data)).map((k) => `data.${k}`);
}

/** Throws, naming the command line and the answer, when a --json answer breaks its verb's contract. */
export function assertAnswerContract(args: readonly string[], exitCode: number, json: unknown): void {
  if (!args.includes('--json') || json === undefined) return;
  const breach = contractBreach(args, exitCode, json);
  if (breach) throw new Error(`abcd ${args.join(' ')} broke the --json contract: ${breach}\nanswer: ${JSON.stringify(json)}`);
}
