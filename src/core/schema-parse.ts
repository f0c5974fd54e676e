// Parsing with a zod schema the way a short-lived CLI process should: interpreted at first.
import type { z } from 'zod';

// zod compiles an object schema's parser (new Function) on its first parse: about 1.2 ms for a
// claim's, where each interpreted parse costs about 2 µs more than a compiled one. A verb that
// parses a few values of a kind (every verb on a small remote: one claim to write, one gate
// state, one config) never earns the compile back; past about a hundred the compiled parser is
// as cheap (measured on Node 24, docs/performance.md).
const PARSES_BEFORE_COMPILING = 100;
const parses = new WeakMap<z.ZodType, number>();

/** The parse context that keeps a schema interpreted until it has parsed enough to pay for compiling. */
function interpretedFirst(schema: z.ZodType): { jitless: true } | undefined {
  const n = (parses.get(schema) ?? 0) + 1;
  parses.set(schema, n);
  return n <= PARSES_BEFORE_COMPILING ? { jitless: true } : undefined;
}

/** `schema.safeParse(value)`, interpreted until the schema has parsed enough values to pay for compiling. */
export function safeParseValue<S extends z.ZodType>(schema: S, value: unknown): z.ZodSafeParseResult<z.infer<S>> {
  return schema.safeParse(value, interpretedFirst(schema)) as z.ZodSafeParseResult<z.infer<S>>;
}

/** `schema.parse(value)` (throws zod's error), interpreted likewise. */
export function parseValue<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  return schema.parse(value, interpretedFirst(schema)) as z.infer<S>;
}
