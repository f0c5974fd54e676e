// Whether one settings generation is signed by a key in the person's allowed-signers list,
// checked by git itself (`git verify-commit`), ssh or OpenPGP.
import { writeFile, rename, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Git } from '../../git/git.js';
import type { AllowedSigners } from './signers.js';

/** good: signed by a listed key; unsigned: no signature at all; untrusted: any other signature. */
export type Verdict = 'good' | 'unsigned' | 'untrusted';

export interface Generation {
  oid: string;
  /** The signature's kind from the commit's gpgsig header; absent when unsigned. */
  sig?: 'ssh' | 'pgp' | 'other';
}

/**
 * The first-parent history from `tip`, newest first, at most `max` commits, with each one's
 * signature kind: one process, so unsigned generations cost no verification at all.
 */
export async function listGenerations(git: Git, tip: string, max: number): Promise<Generation[]> {
  return parseRawCommits(await git.history.revList({ revs: [tip], firstParent: true, maxCount: max, raw: true }));
}

/** The signature kind of each commit named (no walk), in one process. */
export async function readSignatureKinds(git: Git, oids: readonly string[]): Promise<Generation[]> {
  if (!oids.length) return [];
  const r = await git.history.tryRevList({ revs: oids, noWalk: true, raw: true });
  return r.ok ? parseRawCommits(r.value) : [];
}

function parseRawCommits(out: string): Generation[] {
  const gens: Generation[] = [];
  let inHeader = false;
  for (const line of out.split('\n')) {
    const commit = /^commit ([0-9a-f]{40,64})$/.exec(line);
    if (commit) {
      gens.push({ oid: commit[1]! });
      inHeader = true;
    } else if (line === '') inHeader = false;
    else if (inHeader && /^gpgsig(-sha256)? /.test(line)) {
      // Message lines are indented, so only a real header line matches here.
      const g = gens.at(-1)!;
      g.sig = line.includes('BEGIN SSH SIGNATURE') ? 'ssh' : line.includes('BEGIN PGP SIGNATURE') ? 'pgp' : 'other';
    }
  }
  return gens;
}

/**
 * One `git verify-commit` for a signed generation. ssh: git checks the key against the list's
 * ssh lines (gpg.ssh.allowedSignersFile points at them). OpenPGP: git checks the signature
 * against the reader's keyring, and abcd then requires its fingerprint to be on the list.
 */
export async function verifyGeneration(o: { git: Git; gen: Generation; list: AllowedSigners; sshFile: string }): Promise<Verdict> {
  return (await verifySigner(o)).verdict;
}

/**
 * The verdict and, when good, the principal the list maps the signing key to: for ssh the one
 * git names ("Good "git" signature for <principal>"), for OpenPGP the `<who>` of its line.
 */
export async function verifySigner(o: {
  git: Git;
  gen: Generation;
  list: AllowedSigners;
  sshFile: string;
}): Promise<{ verdict: Verdict; principal?: string; key?: string }> {
  const { git, gen, list } = o;
  if (!gen.sig) return { verdict: 'unsigned' };
  if (gen.sig === 'ssh' && list.sshLines.length === 0) return { verdict: 'untrusted' };
  if (gen.sig === 'pgp' && list.gpgFingerprints.size === 0) return { verdict: 'untrusted' };
  if (gen.sig === 'other') return { verdict: 'untrusted' };
  const config = gen.sig === 'ssh' ? ['-c', `gpg.ssh.allowedSignersFile=${o.sshFile}`] : [];
  const r = await git.clone.verifyCommit(gen.oid, { config });
  if (!r.ok) return { verdict: 'untrusted' };
  if (gen.sig === 'ssh') {
    const good = /^Good "git" signature for (.+?) with \S+ key (\S+)/m.exec(r.value);
    return { verdict: 'good', ...(good ? { principal: good[1]!, key: good[2]! } : {}) };
  }
  // [GNUPG:] VALIDSIG <signing key fpr> <date> ... <primary key fpr>
  for (const line of r.value.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] === '[GNUPG:]' && f[1] === 'VALIDSIG') {
      const fpr = [f[2], f.at(-1)].map((x) => (x ?? '').toUpperCase()).find((x) => list.gpgFingerprints.has(x));
      if (fpr) return { verdict: 'good', principal: list.gpgPrincipals.get(fpr)! };
    }
  }
  return { verdict: 'untrusted' };
}

/** Writes the list's ssh lines where git can read them (the list may also hold gpg lines). */
export async function writeSshSigners(path: string, list: AllowedSigners): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // Unique per call: two lanes of one process may write it at the same moment.
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, list.sshLines.join('\n') + '\n', { mode: 0o600 });
  await rename(tmp, path);
}
