// git's network calls, each a named operation: fetch, push and ls-remote. The answer is git's
// own result: the transport code (records/store.ts) reads the exit code, the porcelain and the
// remote's refs to decide what happened, so nothing here interprets a failure.
import type { GitFailed } from '../core/refusals.js';
import type { CallOptions, GitRunner, RunResult } from './runner.js';

/** One ref a push sets (`newOid`) or deletes (null), only if it is at `lease` now ('' : absent). */
export interface PushUpdate {
  ref: string;
  newOid: string | null;
  lease?: string | null;
}

export interface FetchOptions extends CallOptions {
  /** Removes the local refs whose remote ref is gone. */
  prune?: boolean;
  /** Writes no FETCH_HEAD and starts no background maintenance: a fetch for records only. */
  recordsOnly?: boolean;
  /** Lets the fetch ask for any reachable commit by id (a local clone serving a lane's store). */
  anyReachableCommit?: boolean;
}

export class Transport {
  constructor(private readonly r: GitRunner) {}

  /** Fetches `refspecs` from `remote` (a name or a path), no tags, quietly. */
  fetch(remote: string, refspecs: readonly string[], o: FetchOptions = {}): Promise<RunResult> {
    const args = [
      ...(o.anyReachableCommit ? ['-c', 'uploadpack.allowReachableSHA1InWant=true'] : []),
      'fetch',
      '--no-tags',
      ...(o.prune ? ['--prune'] : []),
      ...(o.recordsOnly ? ['--no-write-fetch-head', '--no-auto-maintenance'] : []),
      '--quiet',
      remote,
      ...refspecs,
    ];
    return this.r.run(args, o);
  }

  /**
   * Pushes the updates in one push with `--porcelain`. `config`: `-c` pairs ahead of it that run
   * abcd's own pre-push hook (push-guard.ts); without them no hook runs.
   */
  push(
    remote: string,
    updates: readonly PushUpdate[],
    o: CallOptions & { atomic: boolean; config?: readonly string[] },
  ): Promise<RunResult> {
    return this.r.run(pushArgs(remote, updates, o), o);
  }

  /** The GitFailed (exit 9) for a push that failed in this clone, not on the remote. */
  pushFailed(remote: string, updates: readonly PushUpdate[], o: { atomic: boolean; config?: readonly string[] }, r: RunResult): GitFailed {
    return this.r.failed(pushArgs(remote, updates, o), r);
  }

  /** The remote's refs matching the patterns, as `ls-remote` prints them. */
  lsRemote(remote: string, patterns: readonly string[], o: CallOptions = {}): Promise<RunResult> {
    return this.r.run(['ls-remote', remote, ...patterns], o);
  }
}

function pushArgs(remote: string, updates: readonly PushUpdate[], o: { atomic: boolean; config?: readonly string[] }): string[] {
  const args = o.config ? [...o.config, 'push', '--porcelain'] : ['push', '--porcelain', '--no-verify'];
  if (o.atomic) args.push('--atomic');
  for (const u of updates) if (u.lease !== undefined) args.push(`--force-with-lease=${u.ref}:${u.lease ?? ''}`);
  args.push(remote, ...updates.map((u) => (u.newOid === null ? `:${u.ref}` : `${u.newOid}:${u.ref}`)));
  return args;
}
