// abcd's version, from package.json.
import { readFileSync } from 'node:fs';

/** The version in package.json, read only when asked (it sits two levels above the bundle). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
