// Where the machine's state lives and the names of the gate's files. One place, so the
// on-disk format (documented in gate-state.ts) cannot drift between writer and reader.
import { accessSync, chmodSync, constants, lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { unlessSystemError } from '../../core/best-effort.js';
import { UnsafeEnvironment } from '../../core/refusals.js';
import type { ProcessId } from './process.js';

// Sticky and world-writable like /tmp: every user may add, none may remove another's.
const MACHINE_DIR_MODE = 0o1777;
// Not sticky: any user's abcd must replace state.json and clear a dead process's lock,
// whoever wrote them. Every write is an O_EXCL create or a rename, so no symlink is followed.
const GATE_DIR_MODE = 0o777;

export const STATE_FILE = 'state.json';
export const LOCK_DIR = 'lock';

/** The load gate's folder inside the machine dir. */
export function gateDir(machine: string): string {
  return join(machine, 'gate');
}

/** Creates the gate's folder (and the machine dir) shared by all users, and checks we may write it. */
export function ensureGateDir(dir: string): void {
  const parent = join(dir, '..');
  makeShared(parent, MACHINE_DIR_MODE);
  makeShared(dir, GATE_DIR_MODE);
}

function makeShared(dir: string, mode: number): void {
  const created = mkdirSync(dir, { recursive: true });
  // mkdir's mode passes through the umask; only a folder this call made is opened up.
  if (created !== undefined) chmodSync(dir, mode);
  const st = lstatSync(dir);
  if (!st.isDirectory()) {
    throw new UnsafeEnvironment(
      `${dir} is not a directory (a symlink or a file?); the load gate will not use it. Remove it or set ABCD_MACHINE_DIR.`,
      {
        dir,
      },
    );
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (e) {
    // Not writable or searchable by this user is the refusal below; a bug is thrown on as it is.
    unlessSystemError(undefined)(e);
    throw new UnsafeEnvironment(
      `${dir} (owner uid ${st.uid}, mode ${(st.mode & 0o7777).toString(8)}) is not writable by this user, so the ` +
        `load gate cannot be shared; ask its owner to chmod ${mode.toString(8)} it, or set ABCD_MACHINE_DIR.`,
      { dir, uid: st.uid, mode: st.mode & 0o7777 },
    );
  }
}

/** `<kind>-<pid>-<start or x>-<nonce>`: a name that says which process made it. */
export function ownedName(kind: string, who: ProcessId, nonce: string): string {
  return `${kind}-${who.pid}-${who.start ?? 'x'}-${nonce}`;
}

/** Reads back a name made by ownedName, or null for any other name. */
export function parseOwnedName(name: string): { kind: string; who: ProcessId } | null {
  const m = /^([a-z]+)-(\d+)-(\d+|x)-[0-9a-f]+(\.tmp)?$/.exec(name);
  if (!m) return null;
  return { kind: m[1]!, who: { pid: Number(m[2]), start: m[3] === 'x' ? null : m[3]! } };
}
