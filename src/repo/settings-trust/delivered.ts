// The steer requests this clone's lanes delivered in a cycle that landed, by record commit: a
// request is consumed once. The landing deletes the record, but anyone may push the same commit
// to the same ref again, and its signature would still be good; a commit named here is never
// delivered again, nor starts a run. Kept under the git dir, like the verdicts (ADR 0107).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unlessMissing } from '../../core/best-effort.js';

// Commits kept: many weeks of steering; an older one re-pushed is past its ttl and pruned anyway.
const MAX_DELIVERED = 2048;
const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

export function deliveredPath(commonDir: string): string {
  return join(commonDir, 'abcd', 'delivered-requests.json');
}

export async function readDelivered(commonDir: string): Promise<Set<string>> {
  // Missing or torn: nothing remembered (a landed record is deleted, so only a replay is missed).
  const text = await readFile(deliveredPath(commonDir), 'utf8').catch(unlessMissing(undefined));
  let v: unknown;
  try {
    v = text === undefined ? undefined : JSON.parse(text);
  } catch {
    // a single parse: a torn file remembers nothing
  }
  if (Array.isArray(v)) return new Set(v.filter((x): x is string => typeof x === 'string' && OID.test(x)));
  return new Set();
}

/** Adds `tips` to the list; several processes may write at once, each a whole file. */
export async function rememberDelivered(commonDir: string, tips: readonly string[]): Promise<void> {
  if (!tips.length) return;
  const known = await readDelivered(commonDir);
  // Newest last, so the oldest are the ones cut.
  for (const t of tips) {
    known.delete(t);
    known.add(t);
  }
  const path = deliveredPath(commonDir);
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, JSON.stringify([...known].slice(-MAX_DELIVERED)));
  await rename(tmp, path);
}
