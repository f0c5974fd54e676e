// A schema built on its first use instead of when its module loads.
//
// Building zod schemas is most of what loading abcd's record modules costs: every `z.string()`,
// and every `.max()` or `.optional()` after it, is an object with its methods attached. A verb
// decodes a few kinds of record, not every kind its modules define, so each top-level schema is
// built the first time something asks it anything: a parse, a shape, another schema built
// around it. Types are the schema's own.

/** `build()`'s schema, built when it is first used and kept from then on. */
export function lazySchema<S extends object>(build: () => S): S {
  let built: S | undefined;
  const real = (): S => (built ??= build());
  return new Proxy({} as S, {
    get: (_target, key) => Reflect.get(real(), key),
    has: (_target, key) => Reflect.has(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  });
}
