// Files abcd shares with the agent (its mailbox, its usage lines) sit in the cycle's folder,
// which the agent can rewrite: abcd opens them only as the plain files it made, never through
// a symlink the agent put in their place (that would write, or read, outside the sandbox).
import { closeSync, constants, lstatSync, openSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { unlessSystemError } from '../../core/best-effort.js';

// Usage lines beyond this are not read (a lie or a bug; the budget ignores them too).
const MAX_READ_BYTES = 4 << 20;

/** Appends to a file abcd created; false when it is gone or is no longer a plain file. */
export function appendToAgentFile(path: string, text: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!lstatSync(path).isFile()) return false;
    writeSync(fd, text);
    return true;
  } catch (e) {
    // Gone, a symlink (ELOOP), a fifo no one reads (ENXIO), a folder: the system call fails; a bug is thrown on.
    return unlessSystemError(false)(e);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A plain file's text ('' when it is gone, a symlink, or anything but a plain file). */
export async function readAgentFile(path: string): Promise<string> {
  let h;
  try {
    h = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = await h.stat();
    if (!st.isFile()) return '';
    const buf = Buffer.alloc(Math.min(st.size, MAX_READ_BYTES));
    const { bytesRead } = await h.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } catch (e) {
    // Gone, a symlink (ELOOP), a fifo no one writes (EAGAIN): the system call fails; a bug is thrown on.
    return unlessSystemError('')(e);
  } finally {
    await h?.close();
  }
}

/** The size of a plain file, 0 for anything else. */
export function agentFileSize(path: string): number {
  try {
    const st = lstatSync(path);
    return st.isFile() ? st.size : 0;
  } catch (e) {
    return unlessSystemError(0)(e); // gone, or a folder on its path replaced by a file
  }
}
