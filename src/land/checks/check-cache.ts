// A sandboxed check's tool cache (XDG_CACHE_HOME, npm's, pip's) is one folder per tree under
// test: a check of one tree writes only the cache that checks of that very tree read (ADR 0106).
// Whatever a hostile check leaves there (a planted tool, a poisoned package) is found only by a
// check that runs the same code it did, never by a check of another item, another repository
// or the person's own land: the lane's and the person's checks keep caches apart even then.
import { createHash } from '../../core/builtins.js';
import { mkdir, readdir, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { unlessMissing } from '../../core/best-effort.js';

// Caches older than this are removed when a check starts: a day of retests on the same tree.
const KEEP_CACHE_MS = 24 * 60 * 60_000;
// However fresh, no more than this many caches stay (one npm cache can be hundreds of MB).
const MAX_CACHES = 16;

/** The folder a user's check caches live in, one per tree (`<machine>/check-cache/<uid>/trees/<key>`). */
export function checkCacheRoot(machineDir: string, uid: string): string {
  return join(machineDir, 'check-cache', uid);
}

/**
 * The cache of the checks of `tree`, made if new and marked used: keyed by the tree, the check
 * commands (main's config, not the tree's) and who runs them, so a lane's check and the
 * person's never share one. Old caches, and the one shared cache of earlier versions, go first.
 */
export async function treeCheckCache(o: {
  machineDir: string;
  uid: string;
  tree: string;
  checks: readonly string[];
  caller: 'lane' | 'person';
  now: number;
}): Promise<string> {
  const root = checkCacheRoot(o.machineDir, o.uid);
  const key = createHash('sha256')
    .update(JSON.stringify([o.tree, o.checks, o.caller]))
    .digest('hex')
    .slice(0, 32);
  const trees = join(root, 'trees');
  await mkdir(trees, { recursive: true, mode: 0o700 });
  await pruneCaches(root, trees, { keep: key, now: o.now });
  const dir = join(trees, key);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const at = new Date(o.now);
  await utimes(dir, at, at);
  return dir;
}

/**
 * Best effort: removes the earlier shared layout (every entry of `root` but `trees`, which a
 * hostile check of an older abcd may have poisoned), caches unused for KEEP_CACHE_MS, and the
 * oldest past MAX_CACHES. Never follows a link a check left: rm removes the link itself.
 */
async function pruneCaches(root: string, trees: string, o: { keep: string; now: number }): Promise<void> {
  // cleanup: a cache another land removed, or one a check left unremovable; the next prune tries again
  const gone = (p: string) => rm(p, { recursive: true, force: true }).catch(() => undefined);
  for (const e of await readdir(root).catch(unlessMissing([] as string[]))) if (e !== 'trees') await gone(join(root, e));
  const seen = await Promise.all(
    (await readdir(trees).catch(unlessMissing([] as string[]))).map(async (name) => ({
      name,
      // Another land may have pruned it since the listing: a cache gone counts as the oldest.
      at: (await stat(join(trees, name)).catch(unlessMissing(undefined)))?.mtimeMs ?? 0,
    })),
  );
  const others = seen.filter((c) => c.name !== o.keep).sort((a, b) => b.at - a.at);
  for (const [i, c] of others.entries()) if (i >= MAX_CACHES - 1 || o.now - c.at > KEEP_CACHE_MS) await gone(join(trees, c.name));
}
