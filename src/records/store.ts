// Fetching and pushing records on the remote, with deadlines and a local cache.
import { RemoteUnavailable, UnsafeEnvironment, type Outcome } from '../core/refusals.js';
import { cachePrefix, fromCacheRef, RECORD_PREFIX } from './refs.js';
import { keepCheckedTips, learnPushed, listCacheRefs, markChecked, readWithTips } from './store-cache.js';
import type { CheckedTipsFile } from './checked-tips.js';
import type { KnownKind } from './envelope.js';
import type { CallOptions, Git, RunResult } from '../git/git.js';
import { isRejected, parsePushPorcelain, type PorcelainRef } from '../git/porcelain.js';
import { BEFORE_READS_TO_SETTLE, judgePush, REREAD_DELAYS_MS, type PushSeen } from './push-outcome.js';
import type { NetworkLimit, RawRecord, RefUpdate } from './store-types.js';
import type { PushGuard } from '../git/push-guard.js';
import { cannotStore, failedBeforeSending, localObjectUnreadable } from '../git/transport-errors.js';
import { cannotStoreRefusal, MIN_NETWORK_CALL_MS, unreachableRefusal } from './store-refusals.js';

export type { NetworkLimit, RawRecord, RefUpdate } from './store-types.js';

export type PushResult = { ok: true } | { ok: false; rejected: PorcelainRef[]; remoteTips: Map<string, string | null>; declined?: true };

/** A wait's end: network calls end by `untilMs`; refusals name the wait as `untilMs - startedAt`. */
export interface NetworkDeadline {
  readonly untilMs: number;
  readonly startedAt: number;
}

/** What bounds every network call of a store: git's timeout, and the clock a deadline is read on. */
export interface NetworkBounds {
  /** The longest any network git call runs (ABCD_NETWORK_TIMEOUT, else the default). */
  readonly capMs: number;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly auth?: NetworkAuth;
  /**
   * The clone's files, read in process: the cached record refs from its common dir (git when
   * they are anything but plain files), and each tip's record kept in `tipCache` (tip-cache.ts),
   * which learns the records this process pushed from the loose objects in `objectsDir`;
   * `checked`: the tips this build decoded before (checked-tips.ts), absent where the build
   * has no name (a run from the sources), so every record is checked.
   */
  readonly files?: {
    readonly commonDir: string;
    readonly tipCache: string;
    readonly objectsDir?: string;
    readonly checked?: CheckedTipsFile;
  };
}

// The last network calls of a wait (a push found possible just at the deadline, the re-read
// that confirms it) may run this far past the deadline; keeps "deadline + 1 s" with room for
// the process to report and exit.
const DEADLINE_GRACE_MS = 600;

/** A network git call's result with the limit it ran under. */
type NetResult = RunResult & { limit: NetworkLimit };

/**
 * Runs one network git call with the credentials it needs (abcd's App token through the
 * credential channel on a forge); absent on remotes where git's own credentials apply.
 */
export type NetworkAuth = <T>(call: (env: Record<string, string>) => Promise<T>) => Promise<T>;

// Concurrent fetches into one clone's cache can meet each other's ref locks; retry briefly.
const FETCH_LOCK_RETRIES = 6;

/**
 * Reads and writes the `refs/heads/abcd/*` namespace of one remote. Immutable: a store's
 * network calls end by its one deadline (or git's timeout without one); an act with another
 * deadline asks for a store of its own (`until`), so two lanes that share a clone never bound
 * each other's calls.
 */
export class RecordStore {
  constructor(
    private readonly git: Git,
    readonly remote: string,
    private readonly bounds: NetworkBounds,
    /** The wait this store's network calls end by; undefined: git's timeout alone. */
    readonly deadline?: NetworkDeadline,
    /**
     * A record fetch started before the verb needed it (prefetch), so git works while the verb's
     * own modules load: the next fetch of the same refspecs under the same deadline is that one.
     * Shared by the stores `until` and `unbounded` derive, so the one that asks first takes it;
     * it only moves a fetch earlier, never changes what is fetched or how long it may run.
     */
    private readonly early: { fetch?: EarlyFetch } = {},
  ) {}

  /** The same store, its network calls ending by `untilMs` (a wait that began at `startedAt`). */
  until(untilMs: number, startedAt: number = this.bounds.now()): RecordStore {
    return new RecordStore(this.git, this.remote, this.bounds, { untilMs, startedAt }, this.early);
  }

  /** The same store with no deadline: every network call gets git's full timeout. */
  unbounded(): RecordStore {
    return this.deadline ? new RecordStore(this.git, this.remote, this.bounds, undefined, this.early) : this;
  }

  /** How long a network call starting now may run. */
  private limit(): NetworkLimit {
    const { capMs, now } = this.bounds;
    if (!this.deadline) return { ms: capMs };
    const { startedAt, untilMs } = this.deadline;
    const left = untilMs + DEADLINE_GRACE_MS - now();
    if (left >= capMs) return { ms: capMs };
    return { ms: Math.max(0, left), deadline: { startedAt, untilMs, waitedMs: () => now() - startedAt } };
  }

  private sleep(ms: number): Promise<void> {
    return this.bounds.sleep(ms);
  }

  private async net(call: (o: CallOptions) => Promise<RunResult>, act: string, extraEnv: Record<string, string> = {}): Promise<NetResult> {
    const limit = this.limit();
    // Out of time before starting: nothing was sent, so nothing changed.
    if (limit.ms < MIN_NETWORK_CALL_MS) throw this.unreachable(act, { stderr: '', timedOut: true, limit }, 'unchanged');
    const run = (env: Record<string, string>) => call({ timeoutMs: limit.ms, env: { ...env, ...extraEnv } });
    const { auth } = this.bounds;
    const r = await (auth ? auth(run) : run({}));
    return { ...r, limit };
  }

  /**
   * One round trip: mirrors every record ref into the local cache, pruning deleted ones.
   * `also` are further refspecs fetched in the same round trip (land fetches main with it).
   */
  async fetch(also: readonly string[] = []): Promise<void> {
    const early = this.early.fetch;
    if (early && early.also === also.join('\n') && sameDeadline(early.deadline, this.deadline)) {
      this.early.fetch = undefined;
      return early.done;
    }
    return this.fetchNow(also);
  }

  private async fetchNow(also: readonly string[], signal?: AbortSignal): Promise<void> {
    const spec = [`+${RECORD_PREFIX}*:${cachePrefix(this.remote)}*`, ...also];
    for (let attempt = 0; ; attempt++) {
      const r = await this.net(
        (o) => this.git.transport.fetch(this.remote, spec, { ...o, prune: true, recordsOnly: true, ...(signal ? { signal } : {}) }),
        'read the records from',
      );
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
   * Starts the record fetch (and `also`) now, under this store's deadline; the next `fetch` of
   * the same refspecs under the same deadline waits for this one instead of starting another.
   * A failure is kept for that call to throw, never unhandled.
   */
  prefetch(also: readonly string[] = []): void {
    if (this.early.fetch) return;
    const stop = new AbortController();
    const done = this.fetchNow(also, stop.signal);
    // Not swallowed: `done` keeps the failure for the next fetch to throw; this only marks it handled.
    done.catch(() => undefined);
    this.early.fetch = { also: also.join('\n'), ...(this.deadline ? { deadline: this.deadline } : {}), done, stop };
  }

  /**
   * Ends an early fetch nobody took (the verb refused before it read): a refusal is never kept
   * waiting for a fetch whose answer nobody reads, on a slow or dead remote least of all.
   */
  abandonPrefetch(): void {
    const early = this.early.fetch;
    this.early.fetch = undefined;
    early?.stop.abort();
  }

  /**
   * Every cached record ref with its blob, in three local processes whatever the count: the
   * sizes first, so a huge blob on the remote is refused unread instead of filling memory.
   */
  async readCached(): Promise<RawRecord[]> {
    return (await this.readCachedWith([])).records;
  }

  /**
   * readCached, and in the same `for-each-ref` the tips of `also`, local refs outside the
   * record cache (land's copy of main, fetched in the same round trip): a ref that does not
   * exist is absent from `tips`.
   */
  async readCachedWith(also: readonly string[]): Promise<{ records: RawRecord[]; tips: Map<string, string> }> {
    const prefix = cachePrefix(this.remote);
    const tips = new Map<string, string>();
    const refs: { tip: string; ref: string }[] = [];
    const files = this.bounds.files;
    for (const { oid, name } of await listCacheRefs(this.git, files?.commonDir, prefix, also)) {
      // for-each-ref matches a pattern as a prefix of whole path components: keep exact names only.
      if (also.includes(name)) tips.set(name, oid);
      else if (name.startsWith(prefix)) refs.push({ tip: oid, ref: fromCacheRef(this.remote, name) });
    }
    const records = await readWithTips(this.git, files?.tipCache, refs);
    if (files?.checked) markChecked(files.checked, records);
    return { records, tips };
  }

  /**
   * Keeps the tips of `records` this build has now decoded, `learned` beside those it had
   * (RawRecord.checked), for the next read to decode without a schema. Nothing new: no write.
   * Only tips listed now are kept, so the file never outgrows the records.
   */
  async keepChecked(records: readonly RawRecord[], learned: ReadonlyMap<string, KnownKind>): Promise<void> {
    const file = this.bounds.files?.checked;
    if (file) await keepCheckedTips(file, records, learned);
  }

  /**
   * The cached tip of one record ref, or null when the cache has none: what a writer of its own
   * record leases on after a fetch, without reading or decoding any record. Lists only the
   * ref's own folder of the cache (an announcement's: one ref per session).
   */
  async cachedTip(ref: string): Promise<string | null> {
    if (!ref.startsWith(RECORD_PREFIX)) throw new Error(`${ref} is not a record ref`);
    const cacheRef = cachePrefix(this.remote) + ref.slice(RECORD_PREFIX.length);
    const folder = cacheRef.slice(0, cacheRef.lastIndexOf('/') + 1);
    const listed = await listCacheRefs(this.git, this.bounds.files?.commonDir, folder, []);
    return listed.find((r) => r.name === cacheRef)?.oid ?? null;
  }

  /**
   * Pushes updates in one push (atomic unless told otherwise) and reports what the remote did.
   * An answer the remote did not give is read back from it: "unchanged" only when no byte can
   * have been sent or a re-read saw the refs as before (ADR 0015).
   */
  async push(updates: readonly RefUpdate[], opts: { atomic: boolean; guard?: PushGuard }): Promise<PushResult> {
    // A guarded push runs abcd's own pre-push hook only (push-guard.ts); others run no hook.
    const push = { atomic: opts.atomic, ...(opts.guard ? { config: opts.guard.args } : {}) };
    const r = await this.net((o) => this.git.transport.push(this.remote, updates, { ...o, ...push }), 'push to', opts.guard?.env);
    if (r.exitCode === 0) {
      // The tip cache learns what the remote took, so the next read need not ask git for it.
      if (this.bounds.files) await learnPushed(this.bounds.files, updates);
      return { ok: true };
    }
    // The guard stopped it before anything was sent: the caller reads the records and decides again.
    if (opts.guard?.declined()) return { ok: false, rejected: [], remoteTips: new Map(), declined: true };
    // Packing stopped at an object this clone cannot read: the remote never got a whole pack
    // and changed nothing. The clone's trouble (exit 9), not the remote's.
    if (localObjectUnreadable(r.stderr)) throw this.git.transport.pushFailed(this.remote, updates, push, r);
    const porcelain = parsePushPorcelain(r.stdout.toString());
    if (opts.guard && !opts.guard.ran() && porcelain.length === 0) throw this.unreachable('push to', r, 'unchanged');
    const rejected = porcelain.filter(isRejected);
    const storeFailure = cannotStore(
      r.stderr,
      rejected.map((p) => p.reason ?? p.summary),
    );
    if (porcelain.length === 0 && !r.timedOut && failedBeforeSending(r.stderr)) throw this.unreachable('push to', r, 'unchanged');
    const refs = updates.map((u) => u.ref);
    if (rejected.length > 0 && !storeFailure) {
      // The remote answered ref by ref: an atomic push it refused changed nothing.
      const tips = await this.remoteTips(refs).catch((e: unknown) => {
        throw expectedFailure(e) ? this.unreachable('confirm a push to', r, opts.atomic ? 'unchanged' : 'unknown') : e;
      });
      // HTTP can cut porcelain short: if every ref is where we sent it, it went through.
      if (judgePush(updates, tips, opts.atomic).kind === 'landed') return { ok: true };
      return { ok: false, rejected, remoteTips: tips };
    }
    const seen = await this.reread(updates, opts.atomic);
    if (seen?.kind === 'landed') return { ok: true };
    const outcome: Outcome = seen?.kind === 'before' ? 'unchanged' : 'unknown';
    if (storeFailure) throw cannotStoreRefusal(this.remote, storeFailure, r, outcome);
    // Someone else wrote the claim: ours cannot be there (atomic); callers say fenced.
    if (seen?.kind === 'moved') return { ok: false, rejected, remoteTips: seen.tips };
    throw this.unreachable('finish a push to', r, outcome, seen?.kind === 'before');
  }

  /**
   * Reads a push's refs back after an answer was lost, a bounded number of times: the first
   * read that finds the push landed or someone else's write decides; refs as before decide
   * after two reads (or the last read possible). undefined: the remote could not be read at all.
   */
  private async reread(updates: readonly RefUpdate[], atomic: boolean): Promise<PushSeen | undefined> {
    let seen: PushSeen | undefined;
    let before = 0;
    for (const delay of REREAD_DELAYS_MS) {
      // A wait's deadline bounds the re-reads too: no sleep past it, no read it cannot hold.
      if (this.limit().ms < delay + MIN_NETWORK_CALL_MS) break;
      if (delay > 0) await this.sleep(delay);
      try {
        seen = judgePush(updates, await this.remoteTips(updates.map((u) => u.ref)), atomic);
      } catch (e) {
        // Unreadable now (or out of time): what an earlier read saw still stands.
        if (!expectedFailure(e)) throw e;
        continue;
      }
      if (seen.kind !== 'before') return seen;
      if (++before >= BEFORE_READS_TO_SETTLE) return seen;
    }
    return seen;
  }

  /** The remote's current tips of the given refs (null: absent). One round trip. */
  async remoteTips(refs: readonly string[]): Promise<Map<string, string | null>> {
    const r = await this.net((o) => this.git.transport.lsRemote(this.remote, refs, o), 'read refs from');
    // A read changes nothing; the push it confirms decides its own outcome.
    if (r.exitCode !== 0) throw this.unreachable('read refs from', r, 'unchanged');
    const tips = new Map<string, string | null>(refs.map((ref) => [ref, null]));
    for (const line of r.stdout.toString().split('\n')) {
      const [oid, ref] = line.split('\t');
      if (oid && ref && tips.has(ref)) tips.set(ref, oid);
    }
    return tips;
  }

  /** The remote's branches under `prefix` (ending in `/`) and their tips. One round trip; the remote filters. */
  async remoteRefsUnder(prefix: string): Promise<Map<string, string>> {
    const r = await this.net((o) => this.git.transport.lsRemote(this.remote, [`${prefix}*`], o), 'read refs from');
    if (r.exitCode !== 0) throw this.unreachable('read refs from', r, 'unchanged');
    const tips = new Map<string, string>();
    for (const line of r.stdout.toString().split('\n')) {
      const [oid, ref] = line.split('\t');
      // ls-remote matches a pattern against the tail of each name: keep those that truly start with it.
      if (oid && ref?.startsWith(prefix)) tips.set(ref, oid);
    }
    return tips;
  }

  private unreachable(act: string, r: { stderr: string; timedOut: boolean; limit: NetworkLimit }, outcome: Outcome, reread = false) {
    return unreachableRefusal(this.remote, act, r, outcome, reread);
  }
}

/** A fetch started early: its refspecs beyond the records', the deadline it runs under, its end. */
interface EarlyFetch {
  readonly also: string;
  readonly deadline?: NetworkDeadline;
  readonly done: Promise<void>;
  readonly stop: AbortController;
}

function sameDeadline(a: NetworkDeadline | undefined, b: NetworkDeadline | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.untilMs === b.untilMs && a.startedAt === b.startedAt);
}

/** The failures a network read is expected to have; anything else is a bug and propagates. */
function expectedFailure(e: unknown): boolean {
  return e instanceof RemoteUnavailable || e instanceof UnsafeEnvironment;
}
