// Files abcd keeps in the clone's git directory: safe names, atomic writes.
import { createHash } from '../core/builtins.js';
import { tempTag } from '../core/temp-name.js';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** A file name for a ref that is safe on any filesystem. */
export function refFileName(ref: string): string {
  return createHash('sha1').update(ref).digest('hex');
}

/** Writes a file so that a concurrent reader sees the old or the new content, never half. */
export async function writeAtomic(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${tempTag()}.tmp`);
  await writeFile(tmp, content);
  await rename(tmp, path);
}

export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
