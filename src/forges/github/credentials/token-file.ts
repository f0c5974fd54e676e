// The person's user-to-server token pair, shared by every abcd process of the person through
// one file: a refresh invalidates the old pair, so a process that refreshed must hand the new
// access token to the others, or each would refresh and knock out the rest.
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { UnsafeEnvironment } from '../../../core/refusals.js';
import { parseConfigFile } from './app-config.js';
import { readPrivateText, writePrivateAtomic } from './app-private-file.js';
import { lazySchema } from '../../../core/lazy-schema.js';

export const UserTokenSchema = lazySchema(() =>
  z.object({
    v: z.literal(1),
    token: z.string().min(1),
    /** Milliseconds since the epoch, as every abcd time. */
    expiresAt: z.number().int(),
    refreshToken: z.string().min(1),
    refreshTokenExpiresAt: z.number().int().optional(),
    /** The person the token acts for, from GET /user; absent until resolved. */
    login: z.string().min(1).optional(),
  }),
);
export type UserToken = z.infer<typeof UserTokenSchema>;

const EXAMPLE = '{"v": 1, "token": "ghu_...", "expiresAt": 1767225600000, "refreshToken": "ghr_...", "login": "octocat"}';

/** Identifies one version of the file, to notice cheaply that another process replaced it. */
export interface FileStamp {
  ino: number;
  mtimeMs: number;
  size: number;
}

export async function stampOf(path: string): Promise<FileStamp | undefined> {
  try {
    const s = await stat(path);
    return { ino: s.ino, mtimeMs: s.mtimeMs, size: s.size };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

export function sameStamp(a: FileStamp | undefined, b: FileStamp | undefined): boolean {
  return a !== undefined && b !== undefined && a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.size === b.size;
}

/** Reads the token file after its mode check; refuses when there is none. */
export async function readUserToken(path: string): Promise<{ token: UserToken; stamp: FileStamp | undefined }> {
  // Stamp first: if the file changes between the two reads, the next get() sees a new stamp.
  const stamp = await stampOf(path);
  const text = await readPrivateText(path, "the person's App refresh token");
  if (text === undefined) {
    throw new UnsafeEnvironment(`no user token for the App (${path} does not exist): run "abcd setup-app" to authorize abcd once.`, {
      path,
      reason: 'no-user-token',
    });
  }
  return { token: parseConfigFile(path, text, UserTokenSchema, EXAMPLE), stamp };
}

export async function writeUserToken(path: string, token: UserToken): Promise<void> {
  await writePrivateAtomic(path, JSON.stringify(UserTokenSchema.parse(token), null, 2) + '\n');
}
