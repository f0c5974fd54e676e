// Whether an ssh key of the person's allowed-signers list was valid at a given instant, by the
// `valid-after` / `valid-before` options of its lines (git's gpg.ssh.allowedSignersFile format).
// git checks them at the commit's own date, which whoever holds the key sets at will; a request
// is judged at the time this clone first saw it instead (ADR 0107).
import { createHash } from '../../core/builtins.js';

const KEY_TYPE = /^(ssh-|ecdsa-|sk-)/;

/** The fingerprint ssh-keygen prints (`SHA256:<base64 without padding>`) of a public key blob. */
export function sshFingerprint(base64Key: string): string {
  return `SHA256:${createHash('sha256').update(Buffer.from(base64Key, 'base64')).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Whether some line naming `principal` with the key `fingerprint` allows `at` (ms since the
 * epoch); true when a line has no time options. False when no line names both.
 */
export function sshKeyValidAt(lines: readonly string[], o: { principal: string; fingerprint: string; at: number }): boolean {
  return lines.some((line) => {
    const f = line.trim().split(/\s+/);
    const hasOptions = !KEY_TYPE.test(f[1] ?? '');
    const key = f[hasOptions ? 3 : 2] ?? '';
    if (!f[0]!.split(',').includes(o.principal) || sshFingerprint(key) !== o.fingerprint) return false;
    const options = hasOptions ? f[1]! : '';
    const after = sshTime(/(?:^|,)valid-after="?([0-9]{8,14}Z?)"?/i.exec(options)?.[1]);
    const before = sshTime(/(?:^|,)valid-before="?([0-9]{8,14}Z?)"?/i.exec(options)?.[1]);
    return (after === undefined || o.at >= after) && (before === undefined || o.at < before);
  });
}

/** ssh's `YYYYMMDD[HHMM[SS]]` time, UTC with a trailing `Z`, else local time (as ssh-keygen reads it). */
function sshTime(t: string | undefined): number | undefined {
  if (!t) return undefined;
  const utc = t.endsWith('Z');
  const d = utc ? t.slice(0, -1) : t;
  const n = (a: number, b: number) => Number(d.slice(a, b) || 0);
  const parts = [n(0, 4), n(4, 6) - 1, n(6, 8), n(8, 10), n(10, 12), n(12, 14)] as const;
  return utc ? Date.UTC(...parts) : new Date(...parts).getTime();
}
