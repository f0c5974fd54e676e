// Turns a zod issue on the repository config into a sentence a person can act on: the key
// that is wrong and, for an unknown key, the keys allowed where it stands.
import type { z } from 'zod';
import { sanitizeLine } from '../core/sanitize.js';

interface Described {
  message: string;
  data: { key: string; reason: 'unknown-key' | 'wrong-type'; allowed?: string[] };
}

/** The keys an object schema allows at `path` (optional wrappers looked through). */
export function allowedKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let s: z.ZodType | undefined = schema;
  for (const step of [...path, null]) {
    while (s && (s.def.type === 'optional' || s.def.type === 'nullable')) s = (s as unknown as { unwrap(): z.ZodType }).unwrap();
    if (!s || s.def.type !== 'object') return [];
    const shape: Record<string, z.ZodType> = (s as unknown as { shape: Record<string, z.ZodType> }).shape;
    if (step === null) return Object.keys(shape);
    s = shape[String(step)];
  }
  return [];
}

// Keys come from a file anyone who can push to main wrote: shown sanitized and cut short.
function dotted(path: readonly PropertyKey[]): string {
  return sanitizeLine(path.map(String).join('.'), 100);
}

export function describeConfigIssue(schema: z.ZodType, issue: z.core.$ZodIssue): Described {
  if (issue.code === 'unrecognized_keys') {
    const allowed = allowedKeysAt(schema, issue.path);
    const keys = issue.keys.map((k) => dotted([...issue.path, k]));
    const where = issue.path.length ? `in "${dotted(issue.path)}"` : 'at the top level';
    return {
      message:
        `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}; ` +
        `the keys allowed ${where} are ${allowed.map((k) => `"${k}"`).join(', ')}`,
      data: { key: keys[0]!, reason: 'unknown-key', allowed },
    };
  }
  const key = dotted(issue.path) || '(the whole file)';
  const expected = issue.code === 'invalid_union' ? 'a string or a list of strings' : issue.message.replace(/^Invalid input: /, '');
  return { message: `"${key}" has the wrong type or value: expected ${expected}`, data: { key, reason: 'wrong-type' } };
}
