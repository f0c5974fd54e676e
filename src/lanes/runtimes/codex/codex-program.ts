// Codex's npm package is a launcher (`bin/codex.js`) that runs the native binary of a second,
// per-platform package (`@openai/codex-linux-x64`...), installed inside it or beside it. When
// the sandbox has to show the launcher's folder (an install under HOME, which it hides), it
// must show that package too, or Codex stops at "Missing optional dependency". Nothing is
// added for a launcher that is visible as it is, nor for a place inside a secret folder.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { unlessSystemError } from '../../../core/best-effort.js';
import type { Bind } from '../../../machine/sandbox/bwrap.js';
import { isInside } from '../../../machine/sandbox/places.js';

/** The binds that show Codex's platform package beside a launcher folder the view binds. */
export function codexPlatformBinds(binds: readonly Bind[], secret: readonly string[]): Bind[] {
  const out: Bind[] = [];
  for (const b of binds) {
    if (basename(b.path) !== 'bin') continue;
    const pkg = dirname(b.path);
    if (packageName(pkg) !== '@openai/codex') continue;
    const platform = platformPackage(pkg);
    if (!platform || binds.some((x) => isInside(platform, x.path))) continue;
    if (secret.some((s) => isInside(platform, s) || isInside(s, platform))) continue;
    out.push({ path: platform });
  }
  return out;
}

/** The name in `dir`'s package.json: none when it has none, or is missing or unreadable (a bug is thrown on). */
function packageName(dir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, 'package.json'), 'utf8');
  } catch (e) {
    return unlessSystemError(undefined)(e);
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    // a single parse: a package.json that is no JSON names no package
    return undefined;
  }
  const name = typeof v === 'object' && v !== null ? (v as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : undefined;
}

/**
 * Where the launcher in `pkg` finds its platform package, as it looks for it (node's resolution):
 * none when node finds none (its resolution's errors carry a code; a bug is thrown on).
 */
function platformPackage(pkg: string): string | undefined {
  try {
    const found = createRequire(join(pkg, 'bin', 'codex.js')).resolve(`@openai/codex-${process.platform}-${process.arch}/package.json`);
    return dirname(found);
  } catch (e) {
    if (e instanceof Error && 'code' in e && typeof e.code === 'string') return undefined;
    throw e;
  }
}
