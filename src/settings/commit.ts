// A settings generation is written like any record commit, except that it is signed with git's
// own commit signing (gpg.format, user.signingkey) whenever the settings are protected or the
// person has a signing key configured (ADR 0019).
import { RECORD_FILE } from '../records/refs.js';
import { UnsafeEnvironment } from '../core/refusals.js';
import type { Signature } from '../records/objects.js';
import type { Git } from '../git/git.js';
import { sanitizeLine } from '../core/sanitize.js';

/** Whether this clone's git has a signing key configured (user.signingkey). */
export async function hasSigningKey(git: Git): Promise<boolean> {
  const key = await git.clone.config('user.signingkey');
  return key !== undefined && key !== '';
}

export async function writeSettingsCommit(o: {
  git: Git;
  content: string;
  parent: string | null;
  message: string;
  author: Signature;
  atMs: number;
  sign: boolean;
  /** Where the list is, for the message when signing fails. */
  signers: string;
  /** What is being written, for that message (default: the settings generation). */
  what?: string;
  /** What counts only when signed, for that message (default: Requests with `what`, else Settings). */
  counts?: string;
}): Promise<string> {
  const blob = await o.git.objects.hashObject(o.content);
  const tree = await o.git.objects.mktree([{ mode: '100644', type: 'blob', oid: blob, name: RECORD_FILE }]);
  const date = `@${Math.floor(o.atMs / 1000)} +0000`;
  const who = { GIT_AUTHOR_NAME: o.author.name, GIT_AUTHOR_EMAIL: o.author.email, GIT_AUTHOR_DATE: date };
  const env = { ...who, GIT_COMMITTER_NAME: o.author.name, GIT_COMMITTER_EMAIL: o.author.email, GIT_COMMITTER_DATE: date };
  const c = await o.git.objects.commitTree({ tree, parents: o.parent ? [o.parent] : [], message: o.message, env, sign: o.sign });
  if (c.ok) return c.value;
  const r = c.failure;
  if (!o.sign) throw new Error(`git commit-tree failed (exit ${r.exitCode}): ${r.stderr.trim()}`);
  const why = sanitizeLine(r.stderr.trim().split('\n').filter(Boolean).slice(-2).join(' '), 300) || `exit ${r.exitCode}`;
  throw new UnsafeEnvironment(
    `git could not sign ${o.what ?? 'the settings generation'} (${why}); nothing was written. ${o.counts ?? (o.what ? 'Requests' : 'Settings')} count only when signed by a key ` +
      `in ${o.signers}: set up git's commit signing (git config gpg.format ssh; git config user.signingkey ~/.ssh/id_ed25519.pub, ` +
      'a key without a passphrase prompt or one held by ssh-agent) and run the command again.',
    { reason: 'settings-signing-failed', signers: o.signers, git: why },
  );
}
