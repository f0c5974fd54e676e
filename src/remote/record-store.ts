import { RemoteUnavailable, UnsafeEnvironment } from '../refusals.js';
import { MAX_RECORD_BYTES } from '../records/envelope.js';
import { cachePrefix, fromCacheRef, RECORD_FILE, RECORD_PREFIX } from '../records/refs.js';
import type { Git } from './git.js';
import { isRejected, parsePushPorcelain, type PorcelainRef } from './porcelain.js';
import { failedBeforeConnecting, lastLine, looksUnauthorized } from './transport-errors.js';

/** A record ref as mirrored from the remote, with its blob when it has one. */
export interface RawRecord {
  ref: string;
  tip: string;
  /** undefined when the tip's tree has no record file. */
  blob?: Buffer;
  /** Size of the blob when it was too large to read. */
  oversized?: number;
  blobOid?: string;
}

/**
 * One ref to change in a push. `lease`: a tip the remote must still have, null for "must
 * not exist yet", undefined for no lease (a plain fast-forward push).
 */
export interface RefUpdate {
  ref: string;
  /** null deletes the ref. */
  newOid: string | null;
  lease?: string | null;
}

export type PushResult =
  | { ok: true }
  | { ok: false; rejected: PorcelainRef[]; remoteTips: Map<string, string | null> };

/**
 * Runs one network git call with the credentials it needs (abcd's App token through the
 * credential channel on a forge); absent on remotes where git's own credentials apply.
 */
export type NetworkAuth = <T>(call: (env: Record<string, string>) => Promise<T>) => Promise<T>;

// Concurrent fetches into one clone's cache can meet each other's ref locks; retry briefly.
const FETCH_LOCK_RETRIES = 6;

/** Reads and writes the `refs/heads/abcd/*` namespace of one remote. */
export class RecordStore {
  constructor(
    private readonly git: Git,
    readonly remote: string,
    /** The timeout of the next network git call (derived from the verb's deadline). */
    private readonly timeoutMs: () => number,
    private readonly sleep: (ms: number) => Promise<void>,
    private readonly auth?: NetworkAuth,
  ) {}

  private net(args: readonly string[]) {
    const timeoutMs = this.timeoutMs();
    const run = (env: Record<string, string>) => this.git.run(args, { timeoutMs, env });
    return this.auth ? this.auth(run) : run({});
  }

  /**
   * One round trip: mirrors every record ref into the local cache, pruning deleted ones.
   * `also` are further refspecs fetched in the same round trip (land fetches main with it).
   */
  async fetch(also: readonly string[] = []): Promise<void> {
    const spec = [`+${RECORD_PREFIX}*:${cachePrefix(this.remote)}*`, ...also];
    const args = ['fetch', '--no-tags', '--prune', '--no-write-fetch-head', '--no-auto-maintenance', '--quiet'];
    for (let attempt = 0; ; attempt++) {
      const r = await this.net([...args, this.remote, ...spec]);
      if (r.exitCode === 0) return;
      // A `git worktree add` in this clone (land, a lane beside this one) writes its HEAD in two
      // steps; a fetch walking every worktree's HEAD meanwhile reads "bad object worktrees/...".
      const lockContention = /cannot lock ref|unable to create .*\.lock|unable to update local ref|bad object worktrees\//i.test(r.stderr);
      if (lockContention && attempt < FETCH_LOCK_RETRIES) {
        await this.sleep(20 + Math.random() * 80 * (attempt + 1));
        continue;
      }
      throw this.unreachable('read the records from', r, 'unchanged');
    }
  }

  /**
   * Every cached record ref with its blob, in three local processes whatever the count: the
   * sizes first, so a huge blob on the remote is refused unread instead of filling memory.
   */
  async readCached(): Promise<RawRecord[]> {
    const prefix = cachePrefix(this.remote);
    const list = await this.git.must(['for-each-ref', '--format=%(objectname) %(refname)', prefix]);
    const refs = list
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const sp = l.indexOf(' ');
        return { tip: l.slice(0, sp), ref: fromCacheRef(this.remote, l.slice(sp + 1)) };
      });
    if (refs.length === 0) return [];
    const input = refs.map((r) => `${r.tip}:${RECORD_FILE}\n`).join('');
    const sizes = (await this.git.must(['cat-file', '--batch-check'], { input })).split('\n');
    const records: RawRecord[] = refs.map(({ ref, tip }, i) => {
      const [oid, type, sizeText] = (sizes[i] ?? '').split(' ');
      const size = Number(sizeText);
      if (type !== 'blob' || !oid || !Number.isInteger(size)) return { ref, tip };
      return size > MAX_RECORD_BYTES ? { ref, tip, oversized: size } : { ref, tip, blobOid: oid };
    });
    const wanted = records.filter((r) => r.blobOid);
    if (wanted.length === 0) return records.map(withoutOid);
    const batch = await this.git.run(['cat-file', '--batch'], { input: wanted.map((r) => `${r.blobOid}\n`).join('') });
    if (batch.exitCode !== 0) throw new Error(`git cat-file --batch failed: ${batch.stderr.trim()}`);
    readBlobs(batch.stdout, wanted);
    return records.map(withoutOid);
  }

  /** Pushes updates in one push (atomic unless told otherwise) and reports what the remote did. */
  async push(updates: readonly RefUpdate[], opts: { atomic: boolean }): Promise<PushResult> {
    const args = ['push', '--porcelain', '--no-verify'];
    if (opts.atomic) args.push('--atomic');
    for (const u of updates) if (u.lease !== undefined) args.push(`--force-with-lease=${u.ref}:${u.lease ?? ''}`);
    args.push(this.remote, ...updates.map((u) => (u.newOid === null ? `:${u.ref}` : `${u.newOid}:${u.ref}`)));
    const r = await this.net(args);
    if (r.exitCode === 0) return { ok: true };
    const porcelain = parsePushPorcelain(r.stdout.toString());
    const beforeConnecting = porcelain.length === 0 && !r.timedOut && failedBeforeConnecting(r.stderr);
    if (beforeConnecting) throw this.unreachable('push to', r, 'unchanged');
    let remoteTips: Map<string, string | null>;
    try {
      remoteTips = await this.remoteTips(updates.map((u) => u.ref));
    } catch {
      throw this.unreachable('confirm a push to', r, 'unknown');
    }
    // The exit code said no, but an atomic push that reached the remote is all or nothing:
    // if every ref is where we sent it, it went through (HTTP can cut porcelain short).
    if (updates.every((u) => (remoteTips.get(u.ref) ?? null) === u.newOid)) return { ok: true };
    const rejected = porcelain.filter(isRejected);
    // No ref says why and the refs are not where we sent them: a killed or cut-off push the
    // remote may still be finishing. Its outcome is unknown, never "nothing changed".
    if (rejected.length === 0) throw this.unreachable('finish a push to', r, 'unknown');
    return { ok: false, rejected, remoteTips };
  }

  /** The remote's current tips of the given refs (null: absent). One round trip. */
  async remoteTips(refs: readonly string[]): Promise<Map<string, string | null>> {
    const r = await this.net(['ls-remote', this.remote, ...refs]);
    if (r.exitCode !== 0) throw this.unreachable('read refs from', r, 'unknown');
    const tips = new Map<string, string | null>(refs.map((ref) => [ref, null]));
    for (const line of r.stdout.toString().split('\n')) {
      const [oid, ref] = line.split('\t');
      if (oid && ref && tips.has(ref)) tips.set(ref, oid);
    }
    return tips;
  }

  private unreachable(act: string, r: { stderr: string; timedOut: boolean }, outcome: 'unchanged' | 'unknown') {
    if (!r.timedOut && looksUnauthorized(r.stderr)) {
      return new UnsafeEnvironment(
        `remote "${this.remote}" refused the credentials git offered to ${act} it (${lastLine(r.stderr)}). ` +
          'On a forge, abcd sends its App token (abcd setup-app); elsewhere, check your git credentials. Nothing was changed.',
        { remote: this.remote, outcome, git: lastLine(r.stderr) },
      );
    }
    const why = r.timedOut ? 'git timed out' : lastLine(r.stderr);
    const next =
      outcome === 'unknown'
        ? 'The push may or may not have happened: run "abcd status" once the remote answers.'
        : 'Nothing was changed. Check the remote URL and network, then try again.';
    return new RemoteUnavailable(`could not ${act} remote "${this.remote}": ${why}. ${next}`, {
      remote: this.remote,
      outcome,
      git: why,
    });
  }
}

/** Fills each record's blob from `git cat-file --batch` output, in request order. */
function readBlobs(out: Buffer, wanted: RawRecord[]): void {
  let pos = 0;
  for (const r of wanted) {
    const nl = out.indexOf(10, pos);
    if (nl < 0) throw new Error(`git cat-file --batch stopped early at ${r.ref}`);
    const size = Number(out.subarray(pos, nl).toString().split(' ')[2]);
    pos = nl + 1;
    r.blob = Buffer.from(out.subarray(pos, pos + size));
    pos += size + 1;
  }
}

function withoutOid(r: RawRecord): RawRecord {
  const { blobOid: _oid, ...rest } = r;
  return rest;
}
