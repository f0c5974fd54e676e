// Writing git objects in-process (loose, as git itself would), without spawning git.
import { createHash, randomBytes } from '../core/builtins.js';
import { link, mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from '../core/builtins.js';

/**
 * Where and how this clone stores objects, as git itself reports it (`rev-parse --git-path
 * objects --show-object-format`), so GIT_OBJECT_DIRECTORY and worktrees are git's answer.
 */
export interface ObjectStore {
  dir: string;
  format: 'sha1' | 'sha256';
}

export type ObjectType = 'blob' | 'tree' | 'commit';

/** The object id git gives `<type> <size>\0<body>` in this store's format. */
export function hashObject(format: ObjectStore['format'], type: ObjectType, body: Buffer): string {
  return createHash(format).update(header(type, body)).update(body).digest('hex');
}

/**
 * Writes one loose object the way git does (ADR 0037): zlib of header + body into a temporary
 * file in the object's fan-out directory, then a link (or rename) to its final name, read-only.
 * An object that is already there is left as it is: same name, same bytes.
 */
export async function writeLooseObject(store: ObjectStore, type: ObjectType, body: Buffer): Promise<string> {
  const oid = hashObject(store.format, type, body);
  const fanout = join(store.dir, oid.slice(0, 2));
  const final = join(fanout, oid.slice(2));
  // Z_BEST_SPEED is git's own default for loose objects (core.looseCompression unset).
  const data = deflateSync(Buffer.concat([header(type, body), body]), { level: 1 });
  await mkdir(fanout, { recursive: true });
  // Unique per writer: concurrent writers in one clone never share a temporary file.
  const tmp = join(fanout, `tmp_obj_abcd_${process.pid}_${randomBytes(6).toString('hex')}`);
  await writeFile(tmp, data, { mode: 0o444 });
  try {
    // git's finalize_object_file: link first, so an existing object is never replaced.
    await link(tmp, final);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
      // A filesystem without hard links: rename, as git falls back to.
      await rename(tmp, final);
      return oid;
    }
  }
  // cleanup: the object is in place; a temporary file left behind costs only disk, and git prune
  // removes tmp_obj_ files.
  await unlink(tmp).catch(() => undefined);
  return oid;
}

function header(type: ObjectType, body: Buffer): Buffer {
  return Buffer.from(`${type} ${body.length}\0`);
}

/** A tree's body for entries already in git's order: "<mode> <name>\0<raw oid>" each. */
export function treeBody(entries: ReadonlyArray<{ mode: string; name: string; oid: string }>): Buffer {
  return Buffer.concat(entries.map((e) => Buffer.concat([Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.oid, 'hex')])));
}
