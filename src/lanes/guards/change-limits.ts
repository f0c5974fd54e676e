// How big one cycle's change may be before anything of it is pushed: the bytes of file content
// it adds or changes, and the paths it touches. An agent that writes a 300 MB build artefact or
// a runaway loop's ten thousand files fails its cycle with the biggest paths named, instead of
// landing on main where only a history rewrite takes it back out.
import { ChangeTooLarge } from '../../core/refusals.js';
import type { Git } from '../../git/git.js';
import type { LanesConfig } from '../../repo/config.js';

// GitHub warns about any file over 50 MiB; a lane's change as a whole stays under that size.
export const DEFAULT_MAX_CHANGE_BYTES = 50 * 1024 * 1024;
// An item's change touches tens of paths, a mechanical edit across a repository hundreds; past
// a thousand it is vendored or generated output or a loop gone wrong, none of which should land
// without a person looking. A repository that needs more raises lanes.maxFiles.
export const DEFAULT_MAX_FILES = 1000;
// How many of the biggest paths a refusal names.
const NAMED_PATHS = 5;

export interface ChangeLimits {
  maxChangeBytes: number;
  maxFiles: number;
}

export function changeLimits(lanes: LanesConfig | undefined): ChangeLimits {
  return { maxChangeBytes: lanes?.maxChangeBytes ?? DEFAULT_MAX_CHANGE_BYTES, maxFiles: lanes?.maxFiles ?? DEFAULT_MAX_FILES };
}

const BLOB_MODE = /^(100644|100755|120000)$/;

/**
 * Counts the change from `from` to `to` (paths added, changed or deleted; the sizes of the
 * blobs it adds or changes) and throws ChangeTooLarge past either limit. Two processes: the
 * tree diff and one batch of sizes.
 */
export async function assertWithinLimits(
  git: Git,
  env: Record<string, string>,
  o: { from: string; to: string; item: string; limits: ChangeLimits },
): Promise<void> {
  // Read untrimmed: a path may end in a space.
  const fields = (await git.diff.treeDiff(o.from, o.to, { env })).split('\0');
  const written: { path: string; oid: string }[] = [];
  let files = 0;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    // ":<old mode> <new mode> <old oid> <new oid> <status>", then the path.
    const [, newMode, , newOid, status] = fields[i]!.slice(1).split(' ');
    files += 1;
    if (status !== 'D' && BLOB_MODE.test(newMode ?? '') && newOid) written.push({ path: fields[i + 1]!, oid: newOid });
  }
  const sizes = written.length
    ? await git.objects.infos(
        written.map((w) => w.oid),
        { env },
      )
    : [];
  const sized = written.map((w, i) => ({ path: w.path, bytes: sizes[i]?.size ?? 0 }));
  const bytes = sized.reduce((n, s) => n + s.bytes, 0);
  const over = bytes > o.limits.maxChangeBytes ? 'maxChangeBytes' : files > o.limits.maxFiles ? 'maxFiles' : undefined;
  if (!over) return;
  const biggest = sized.sort((a, b) => b.bytes - a.bytes || a.path.localeCompare(b.path)).slice(0, NAMED_PATHS);
  const limit =
    over === 'maxChangeBytes'
      ? `adds ${bytes} bytes, past lanes.maxChangeBytes (${o.limits.maxChangeBytes})`
      : `touches ${files} files, past lanes.maxFiles (${o.limits.maxFiles})`;
  const named = biggest.map((b) => `${JSON.stringify(b.path)} (${b.bytes} bytes)`).join(', ');
  throw new ChangeTooLarge(
    `the agent's change ${limit}; nothing was pushed. Biggest: ${named || 'none'}. ` +
      'Make the change smaller, or raise the limit in .abcd/config.json on main.',
    { item: o.item, over, bytes, files, ...o.limits, biggest },
  );
}
