// A change that carries a credential abcd holds by value (the model key in its environment, an
// App or forge token) never lands: once on main it is in every clone for good. The commit
// messages, the paths and the added lines of what would land are searched for each exact value
// (ADR 0108). Shapes are the scrubber's business: here only a certain match refuses.
import { knownSecrets } from '../../core/known-secrets.js';
import { SecretInChange } from '../../core/refusals.js';
import type { Git } from '../../git/git.js';

// A change larger than this is searched in its first part only: a land never waits on a search.
const MAX_DIFF_BYTES = 64 * 1024 * 1024;

/**
 * Refuses when a commit in `base..head` names a known secret in its message, a path it touches
 * or a line it adds. Costs nothing when this process holds no secret; two git processes else.
 */
export async function refuseKnownSecrets(git: Git, o: { item: string; base: string; head: string }): Promise<void> {
  const secrets = knownSecrets();
  if (!secrets.length || o.base === o.head) return;
  const range = [`${o.base}..${o.head}`];
  const log = await git.history.tryLog({ revs: range, format: '%H%n%B', z: true });
  for (const entry of log.ok ? log.value.toString().split('\0') : []) {
    const commit = entry.slice(0, entry.indexOf('\n'));
    const found = secrets.find((s) => entry.includes(s.value));
    if (found) throw refusal(o.item, { secret: found.name, where: 'message', commit });
  }
  // No textconv, no external diff: the clone's config and the work's attributes run nothing here.
  const diff = await git.history.tryLog({ revs: range, format: '%x01%H', patch: true });
  if (!diff.ok) return;
  let commit = '';
  let path = '';
  for (const line of diff.value.subarray(0, MAX_DIFF_BYTES).toString().split('\n')) {
    if (line.startsWith('\x01')) commit = line.slice(1);
    else if (line.startsWith('diff --git ')) {
      path = line.slice('diff --git '.length);
      const found = secrets.find((s) => line.includes(s.value));
      // The path itself holds the value: the refusal names the commit only.
      if (found) throw refusal(o.item, { secret: found.name, where: 'path', commit });
    } else if (line.startsWith('+') && !line.startsWith('+++ ')) {
      const found = secrets.find((s) => line.includes(s.value));
      if (found) throw refusal(o.item, { secret: found.name, where: 'line', commit, path: path.slice(path.indexOf(' b/') + 3) });
    }
  }
}

function refusal(item: string, f: { secret: string; where: 'message' | 'path' | 'line'; commit: string; path?: string }): SecretInChange {
  const what = { message: 'the message of', path: 'a path changed in', line: 'a line added in' }[f.where];
  const at = f.path ? ` (${f.path})` : '';
  return new SecretInChange(
    `${what} commit ${f.commit.slice(0, 12)}${at} holds the value of ${f.secret}, a credential abcd holds; nothing landed. ` +
      'Rewrite the branch without it (git rebase -i, git commit --amend), revoke the credential if the branch was pushed, and land again.',
    { item, secret: f.secret, where: f.where, commit: f.commit, ...(f.path ? { path: f.path } : {}) },
  );
}
