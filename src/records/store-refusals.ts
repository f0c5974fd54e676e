// The refusals of the record store's network calls: what happened, whether anything changed,
// and what to do next.
import { RemoteUnavailable, UnsafeEnvironment, type Outcome } from '../core/refusals.js';
import { formatDuration } from '../core/duration.js';
import type { RunResult } from '../git/git.js';
import { lastLine, looksUnauthorized } from '../git/transport-errors.js';
import type { NetworkLimit } from './store-types.js';

// A network call given less than this cannot finish; it is not started (nothing is sent).
export const MIN_NETWORK_CALL_MS = 50;

/** A network call of the store that failed or ran out of time, as the refusal a verb gives. */
export function unreachableRefusal(
  remote: string,
  act: string,
  r: { stderr: string; timedOut: boolean; limit: NetworkLimit },
  outcome: Outcome,
  reread = false,
) {
  if (!r.timedOut && /could not read (Username|Password)/i.test(r.stderr)) {
    return new UnsafeEnvironment(
      `remote "${remote}" asked for credentials to ${act} it and git had none to offer (abcd never lets git prompt). ` +
        'On a forge, abcd sends its App token (abcd setup-app); elsewhere, set up a git credential helper or an ssh key. ' +
        (outcome === 'unchanged' ? 'Nothing was changed.' : 'The push may or may not have happened: run "abcd status".'),
      { remote, outcome, git: lastLine(r.stderr), offered: false },
    );
  }
  if (!r.timedOut && looksUnauthorized(r.stderr)) {
    return new UnsafeEnvironment(
      `remote "${remote}" refused the credentials git offered to ${act} it (${lastLine(r.stderr)}). ` +
        'On a forge, abcd sends its App token (abcd setup-app); elsewhere, check your git credentials. ' +
        (outcome === 'unchanged' ? 'Nothing was changed.' : 'The push may or may not have happened: run "abcd status".'),
      { remote, outcome, git: lastLine(r.stderr) },
    );
  }
  const d = r.timedOut ? r.limit.deadline : undefined;
  const waitedMs = d?.waitedMs();
  const notStarted = r.limit.ms < MIN_NETWORK_CALL_MS;
  const why = d
    ? `${notStarted ? 'no time left to ask it' : 'no answer'} before the deadline of this wait ` +
      `(${formatDuration(d.untilMs - d.startedAt)}, waited ${formatDuration(waitedMs ?? 0)})`
    : r.timedOut
      ? `git timed out after ${formatDuration(r.limit.ms)} (ABCD_NETWORK_TIMEOUT)`
      : lastLine(r.stderr);
  const next =
    outcome === 'unknown'
      ? 'The push may or may not have happened, and the remote could not be read again: run "abcd status" once the remote answers.'
      : reread
        ? 'abcd read the remote again and its refs are as before: nothing was changed. Try again.'
        : 'Nothing was changed. Check the remote URL and network, then try again.';
  return new RemoteUnavailable(`could not ${act} remote "${remote}": ${why}. ${next}`, {
    remote,
    outcome,
    git: why,
    ...(d ? { deadline: new Date(d.untilMs).toISOString(), waitMs: d.untilMs - d.startedAt, waitedMs } : {}),
  });
}

/** The remote took the push but cannot store it: no write can succeed there. */
export function cannotStoreRefusal(remote: string, said: string, r: RunResult, outcome: Outcome) {
  const next =
    outcome === 'unchanged'
      ? 'abcd read the remote again and nothing was changed.'
      : 'abcd could not read the remote again: run "abcd status" to see whether anything changed.';
  return new RemoteUnavailable(
    `remote "${remote}" cannot store what was pushed to it: ${said}. The server cannot write the repository's ` +
      `objects or refs (permissions, a read-only or full disk), so no write can succeed there. ${next} ` +
      'Ask whoever runs the remote to make the repository writable for the server.',
    { remote, outcome, reason: 'remote-cannot-store', git: lastLine(r.stderr) },
  );
}
