// What this clone has learnt about settings generations, under its git dir: each commit's
// verdict (so a verified tip costs no process on the next read) and the newest valid generation
// it has seen (so a ref moved back or deleted is noticed). Keyed by the allowed-signers list:
// a changed list starts afresh.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unlessMissing } from '../../core/best-effort.js';
import type { Verdict } from './verify.js';

// Verdicts kept in the file; older ones are verified again if ever needed.
const MAX_CACHED_VERDICTS = 256;

export interface TrustCache {
  /** sha256 of the allowed-signers list the verdicts were reached under. */
  list: string;
  verdicts: Record<string, Verdict>;
  /** Request commits (steers, pending slots) → the principal their signature proves, '' for none. */
  principals?: Record<string, string>;
  /** The newest valid generation seen, by its signed record time. */
  newest?: { oid: string; at: number };
  /**
   * Signed request commits → when this clone first saw them (its clock): a key's validity is
   * judged then, never at the commit's own date, which its signer chose. Kept across a change
   * of the list, so rotating a key out does not re-date what was seen before.
   */
  seen?: Record<string, number>;
}

export function trustCachePath(repo: { commonDir: string }): string {
  return join(repo.commonDir, 'abcd', 'settings-trust.json');
}

export async function readTrustCache(path: string, list: string): Promise<TrustCache> {
  // Missing or torn by a crash: verdicts are only a cache, verified again.
  const text = await readFile(path, 'utf8').catch(unlessMissing(undefined));
  let c: TrustCache | undefined;
  try {
    c = text === undefined ? undefined : (JSON.parse(text) as TrustCache);
  } catch {
    // a single parse: a torn file is no cache
  }
  if (c && c.list === list && c.verdicts && typeof c.verdicts === 'object') return c;
  if (c && c.seen && typeof c.seen === 'object') return { list, verdicts: {}, seen: c.seen };
  return { list, verdicts: {} };
}

export async function writeTrustCache(path: string, cache: TrustCache): Promise<void> {
  const verdicts = Object.fromEntries(Object.entries(cache.verdicts).slice(-MAX_CACHED_VERDICTS));
  const principals = cache.principals && Object.fromEntries(Object.entries(cache.principals).slice(-MAX_CACHED_VERDICTS));
  const seen = cache.seen && Object.fromEntries(Object.entries(cache.seen).slice(-MAX_CACHED_VERDICTS * 4));
  await mkdir(dirname(path), { recursive: true });
  // Several processes may write at once: each renames a whole file, the last one wins, and a
  // lost verdict is only verified again.
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, JSON.stringify({ ...cache, verdicts, ...(principals ? { principals } : {}), ...(seen ? { seen } : {}) }));
  await rename(tmp, path);
}
