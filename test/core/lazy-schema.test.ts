// A schema built on its first use: nothing is built at load, it is built once, and it answers
// as the schema itself would: parses, refusals, shapes, and schemas built around it.
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { lazySchema } from '../../src/core/lazy-schema.js';
import { parseValue, safeParseValue } from '../../src/core/schema-parse.js';

describe('lazySchema', () => {
  it('builds nothing until first asked, then builds once', () => {
    let builds = 0;
    const Item = lazySchema(() => {
      builds++;
      return z.strictObject({ slug: z.string().min(1).max(20) });
    });
    const Around = lazySchema(() => z.object({ item: Item, n: z.number().int() }));
    expect(builds).toBe(0);
    expect(parseValue(Around, { item: { slug: 'fix-login' }, n: 3 })).toEqual({ item: { slug: 'fix-login' }, n: 3 });
    expect(builds).toBe(1);
    expect(Item.parse({ slug: 'a' })).toEqual({ slug: 'a' });
    expect(Object.keys(Item.shape)).toEqual(['slug']);
    expect(builds).toBe(1);
  });

  it('refuses as the schema does, with the same issues', () => {
    const eager = z.strictObject({ slug: z.string().max(3) });
    const lazy = lazySchema(() => z.strictObject({ slug: z.string().max(3) }));
    const bad = { slug: 'too long', extra: 1 };
    const a = safeParseValue(eager, bad);
    const b = safeParseValue(lazy, bad);
    expect(b.success).toBe(false);
    expect(b.error?.issues).toEqual(a.error?.issues);
    expect(lazy instanceof z.ZodObject).toBe(true);
    expect(z.toJSONSchema(lazy)).toEqual(z.toJSONSchema(eager));
  });

  it('a schema derived from it (extend, optional) is a schema of its own', () => {
    const Base = lazySchema(() => z.object({ a: z.string() }));
    const More = Base.extend({ b: z.number() });
    expect(More.parse({ a: 'x', b: 1 })).toEqual({ a: 'x', b: 1 });
    expect(Base.optional().parse(undefined)).toBeUndefined();
    expect(() => More.parse({ a: 'x' })).toThrow();
  });
});
