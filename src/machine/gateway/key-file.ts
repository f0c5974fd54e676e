// A model key read from a file a runtime's `keyFile` setting names, for abcd's model gateway to
// hold. The setting is in main's config, so the path names a file on whichever machine runs the
// lane: only an absolute or `~/` path is taken (a relative one would be read from wherever abcd
// was started), and only a regular file of this user's that no group or other user may read,
// as ssh holds its keys. The key is the file's content, trimmed; it is never in a message.
import { constants, realpathSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { isAbsolute, join, normalize } from 'node:path';
import { unlessSystemError } from '../../core/best-effort.js';
import { UsageError } from '../../core/refusals.js';

// A key is a line; a file past this is not one.
const MAX_KEY_BYTES = 16 * 1024;

type Reason =
  'not-absolute' | 'missing' | 'not-a-file' | 'unreadable' | 'empty' | 'too-large' | 'several-lines' | 'too-loose' | 'not-owned';

/** The file a `keyFile` setting names on this machine: absolute, or `~/` under HOME; undefined otherwise. */
export function keyFilePath(setting: string, home: string): string | undefined {
  if (setting.startsWith('~/')) return normalize(join(home, setting.slice(2)));
  return isAbsolute(setting) ? normalize(setting) : undefined;
}

/**
 * The key in the file `setting` (the config key `key` names it) points at, or a UsageError
 * saying what is wrong with the file and what to do, before anything is claimed.
 */
export async function readKeyFile(key: string, setting: string, o: { home: string; uid?: number }): Promise<string> {
  const path = keyFilePath(setting, o.home);
  const refuse = (reason: Reason, why: string, fix: string) =>
    new UsageError(`${key} names ${path ?? setting}, ${why}; nothing was claimed. ${fix}`, 'key-file', {
      key,
      path: path ?? setting,
      reason,
    });
  if (!path)
    throw refuse(
      'not-absolute',
      'which is no absolute or ~/ path',
      `Give the key file's full path (or ~/...) in .abcd/config.json on main.`,
    );
  // O_NOFOLLOW is not used: a link to the key is fine; what it leads to is what is checked.
  const h = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR')
      throw refuse('missing', 'which does not exist on this machine', 'Put the model key there, or fix the path.');
    throw refuse('unreadable', `which abcd cannot read (${e.code ?? e.message})`, 'Make it readable by the user abcd runs as.');
  });
  try {
    const st = await h.stat();
    if (!st.isFile()) throw refuse('not-a-file', 'which is not a regular file', 'Name the file that holds the key.');
    const uid = o.uid ?? process.getuid?.();
    if (uid !== undefined && st.uid !== uid)
      throw refuse(
        'not-owned',
        `which belongs to another user (uid ${st.uid})`,
        'A model key file must be owned by the user abcd runs as.',
      );
    if ((st.mode & 0o077) !== 0)
      throw refuse(
        'too-loose',
        `which its group or other users may read (mode ${(st.mode & 0o777).toString(8)})`,
        `Run chmod 600 ${path}: a model key only its owner may read.`,
      );
    if (st.size > MAX_KEY_BYTES)
      throw refuse('too-large', `which is over ${MAX_KEY_BYTES / 1024} KiB`, 'The file must hold the key alone.');
    const text = (await h.readFile()).toString('utf8').trim();
    if (!text) throw refuse('empty', 'which is empty', 'Put the model key in it.');
    if (/[\r\n]/.test(text))
      throw refuse('several-lines', 'which holds more than one line', 'The file must hold the key alone, on one line.');
    return text;
  } finally {
    await h.close();
  }
}

/** The files `keyFile` settings name, as paths on this machine and through links: every sandbox hides them. */
export function keyFilesOf(settings: ReadonlyArray<string | undefined>, home: string): string[] {
  return settings.flatMap((s) => {
    const p = s ? keyFilePath(s, home) : undefined;
    if (!p) return [];
    let real: string | undefined;
    try {
      real = realpathSync(p);
    } catch (e) {
      // Not there, a link that leads nowhere or a loop: the named path is hidden all the same.
      real = unlessSystemError(undefined)(e);
    }
    return real && real !== p ? [p, real] : [p];
  });
}

/** The `keyFile` settings of main's config's runtimes. */
export function keyFileSettings(lanes: { claude?: { keyFile?: string }; codex?: { keyFile?: string } } | undefined): string[] {
  return [lanes?.claude?.keyFile, lanes?.codex?.keyFile].filter((s): s is string => typeof s === 'string');
}
