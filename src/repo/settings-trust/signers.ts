// The person's allowed-signers list: the keys whose signed commits may change the settings
// (ADR 0019). It lives outside every repository, in the person's abcd config directory, so no
// session, lane or landed commit can add a key to it; only someone who can write the person's
// own files can.
import { createHash } from '../../core/builtins.js';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { UnsafeEnvironment } from '../../core/refusals.js';

export const ALLOWED_SIGNERS_FILE = 'allowed-signers';

// Group or other write bits: anyone but the owner could add a key and sign settings with it.
const OTHERS_WRITE = 0o022;

export interface AllowedSigners {
  path: string;
  /** sha256 of the file: a verdict cached under another list is not reused. */
  hash: string;
  /** Lines in git's gpg.ssh.allowedSignersFile format, as written. */
  sshLines: string[];
  /** OpenPGP fingerprints (upper-case hex), from lines `<who> gpg <fingerprint>`. */
  gpgFingerprints: Set<string>;
  /** Each fingerprint's `<who>`: the principal a signature by that key proves. */
  gpgPrincipals: Map<string, string>;
}

/** The person's list, in their config folder (Deps.config.configDir). */
export function allowedSignersPath(configDir: string): string {
  return join(configDir, ALLOWED_SIGNERS_FILE);
}

/**
 * The list, or undefined when the person has none (settings are unprotected). Refuses (exit 7)
 * a list others may write or that names no key: either would be protection in name only.
 */
export async function readAllowedSigners(configDir: string): Promise<AllowedSigners | undefined> {
  const path = allowedSignersPath(configDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  for (const p of [path, dirname(path)]) await assertOwnerWritesOnly(p);
  const sshLines: string[] = [];
  const gpgFingerprints = new Set<string>();
  const gpgPrincipals = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    if (fields[1] === 'gpg') {
      const fpr = (fields[2] ?? '').toUpperCase();
      if (!/^[0-9A-F]{40}([0-9A-F]{24})?$/.test(fpr))
        throw badLine(path, line, 'a gpg line names a full fingerprint: <you> gpg <40 hex digits>');
      gpgFingerprints.add(fpr);
      gpgPrincipals.set(fpr, fields[0]!);
    } else if (fields.length >= 3) sshLines.push(line);
    else throw badLine(path, line, "an ssh line is <principal> <key-type> <public key>, as in git's gpg.ssh.allowedSignersFile");
  }
  if (sshLines.length === 0 && gpgFingerprints.size === 0) {
    throw new UnsafeEnvironment(`the allowed-signers list ${path} names no key, so no settings could ever be valid. ${EXAMPLE}`, {
      path,
      reason: 'allowed-signers-empty',
    });
  }
  return { path, hash: createHash('sha256').update(text).digest('hex'), sshLines, gpgFingerprints, gpgPrincipals };
}

const EXAMPLE = 'Write one line per key: "you@example.com ssh-ed25519 AAAA..." (your public key) or "you@example.com gpg <fingerprint>".';

function badLine(path: string, line: string, rule: string): UnsafeEnvironment {
  return new UnsafeEnvironment(`the allowed-signers list ${path} has a line abcd cannot read (${line.slice(0, 60)}): ${rule}.`, {
    path,
    reason: 'allowed-signers-unreadable',
  });
}

async function assertOwnerWritesOnly(path: string): Promise<void> {
  const st = await stat(path);
  const me = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if ((me !== undefined && st.uid !== me) || (st.mode & OTHERS_WRITE) !== 0) {
    const mode = (st.mode & 0o777).toString(8).padStart(3, '0');
    throw new UnsafeEnvironment(
      `${path} (the allowed-signers list or its directory) has mode ${mode} or another owner (uid ${st.uid}): someone besides you could add a key ` +
        `and sign settings with it. Make it yours and writable by you only (chmod go-w ${path}).`,
      { path, mode, uid: st.uid, reason: 'allowed-signers-writable' },
    );
  }
}
