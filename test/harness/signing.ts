// Signing set-up for the trust tests: real ssh-keygen keys, git's own commit signing, and the
// person's allowed-signers list in a session's abcd config directory.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Session } from './session.js';

/** A fresh ed25519 key pair without a passphrase; returns the private key's path and the public key. */
export async function makeKey(dir: string, name: string): Promise<{ path: string; pub: string }> {
  const path = join(dir, name);
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', path]);
  const pub = (await readFile(`${path}.pub`, 'utf8')).trim().split(/\s+/).slice(0, 2).join(' ');
  return { path, pub };
}

export async function useSigningKey(s: Session, keyPath: string): Promise<void> {
  await s.git(['config', 'gpg.format', 'ssh']);
  await s.git(['config', 'user.signingkey', keyPath]);
}

/** Writes the person's allowed-signers list into a session's abcd config directory. */
export async function writeSigners(s: Session, lines: string[]): Promise<string> {
  const dir = join(s.env.XDG_CONFIG_HOME!, 'abcd');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, 'allowed-signers');
  await writeFile(path, lines.join('\n') + '\n', { mode: 0o644 });
  return path;
}
