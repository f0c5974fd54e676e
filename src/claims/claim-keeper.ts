// Keeps a claim alive while a land waits and tests, one fenced push at a time.
import type { Claim } from '../records/claim.js';
import { expiresAt } from '../records/claim.js';
import { Fenced, RemoteUnavailable } from '../core/refusals.js';
import { formatDuration, formatInstant } from '../core/duration.js';
import { pushClaim, type ClaimPush, type RecordWrite } from './write.js';
import { fencedAfterPush } from './holding.js';
import type { Repo } from '../repo/repo.js';
import type { RefUpdate } from '../records/store.js';

// Renew when a third of the ttl has passed: two more chances before expiry if one fails.
const RENEW_FRACTION = 3;
// Never renew more often than this, whatever the ttl.
const MIN_RENEW_INTERVAL_MS = 500;

/**
 * Keeps this session's claim alive while a long act (queue wait, checks) runs, and owns the
 * claim's current tip: every push under the claim goes through `push`, one at a time, so a
 * renewal and the landing never lease the same tip. A renewal that finds the claim moved
 * aborts `signal`.
 */
export class ClaimKeeper {
  private chain: Promise<unknown> = Promise.resolve();
  private readonly abort = new AbortController();
  private stopped = false;
  private loop?: Promise<void>;
  fenced?: Fenced;
  /**
   * Why the keeper stopped the land other than a fence: renewals failed until the claim was
   * about to lapse (RemoteUnavailable), or a renewal failed in a way nobody expected (a bug,
   * a refused credential), which is kept as it was thrown.
   */
  failure?: Error;
  /** A generation pushed with an unknown outcome: the remote may hold it. */
  private unsure?: { tip: string; claim: Claim };

  /** Set when the process was asked to stop: the land undoes and ends. */
  interrupted = false;

  /**
   * `repo` pushes with git's full network timeout. With `wait`, a renewal that starts before
   * `wait.until` goes through `wait.waiting` instead and so ends by that deadline: a land whose
   * --wait ran out is not held up by a renewal to a dead remote. Which one is chosen by the
   * time the renewal starts, never by state another act could change.
   */
  constructor(
    private readonly repo: Repo,
    readonly ref: string,
    private readonly item: string,
    public tip: string,
    public claim: Claim,
    private readonly wait?: { waiting: Repo; until: number },
  ) {
    const outer = repo.deps.signal;
    const onStop = () => {
      this.interrupted = true;
      this.abort.abort();
    };
    if (outer?.aborted) onStop();
    else outer?.addEventListener('abort', onStop, { once: true });
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  start(): void {
    const interval = Math.max(MIN_RENEW_INTERVAL_MS, Math.floor(this.claim.ttl / RENEW_FRACTION));
    this.loop = (async () => {
      let failed = 0;
      while (!this.stopped && !this.fenced && !this.failure) {
        await this.repo.deps.clock.sleep(interval, this.abort.signal);
        if (this.stopped) return;
        try {
          await this.push((claim) => ({ claim, message: `renew ${claim.item} while landing (generation ${claim.gen})` }), {
            unlessStopped: true,
            via: this.renewingThrough(),
          });
          failed = 0;
        } catch (e) {
          if (this.fenced) return; // push() aborted the land already
          if (!(e instanceof RemoteUnavailable)) return this.fail(e as Error);
          // The remote briefly away: try again next interval, unless the claim would lapse first.
          failed++;
          const lapsesAt = expiresAt(this.claim);
          if (this.repo.deps.clock.now() + interval >= lapsesAt) return this.fail(this.lapsing(e, failed, lapsesAt));
        }
      }
    })();
  }

  private renewingThrough(): Repo {
    return this.wait && this.repo.deps.clock.now() < this.wait.until ? this.wait.waiting : this.repo;
  }

  /** Ends the land: what it awaits observes `signal`, and land asks `failure` why. */
  private fail(e: Error): void {
    this.failure = e;
    this.abort.abort();
  }

  private lapsing(last: RemoteUnavailable, failed: number, lapsesAt: number): RemoteUnavailable {
    return new RemoteUnavailable(
      `abcd could not renew ${this.item}'s claim ${failed} time${failed === 1 ? '' : 's'} in a row while landing ` +
        `(last: ${last.message}); it lapses at ${formatInstant(lapsesAt)} (in ${formatDuration(lapsesAt - this.repo.deps.clock.now())}), ` +
        'so the land stopped before another session could take the item over; nothing landed. ' +
        'Check that the remote is reachable, then land again.',
      {
        outcome: 'unchanged',
        item: this.item,
        reason: 'renewals-failed',
        failedRenewals: failed,
        lapsesAt: formatInstant(lapsesAt),
        lastError: { code: last.code, message: last.message },
      },
    );
  }

  /** The refusal that ended the land from inside the keeper, if any. */
  get stoppedBy(): Error | undefined {
    return this.fenced ?? this.failure;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.loop;
    // Waits for the pushes in flight to settle; each one's error went to its own caller.
    await this.chain.catch(() => undefined);
  }

  /** Runs `fn` with no push under the claim in flight, so it sees a settled tip. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.chain.then(fn, fn);
    this.chain = p.catch(() => undefined); // the chain only orders; the caller gets p's error
    return p;
  }

  /**
   * Pushes the claim's next generation (built by `next` from the current one) with more refs,
   * exclusively; `via` is the repository (and so the network deadline) to push through, by
   * default the keeper's own, with git's full timeout.
   */
  push(
    next: (claim: Claim) => { claim: Claim; message: string; records?: RecordWrite[]; extra?: RefUpdate[] },
    opts: { unlessStopped?: boolean; via?: Repo } = {},
  ): Promise<ClaimPush> {
    const run = async (): Promise<ClaimPush> => {
      if (this.fenced) throw this.fenced;
      // A renewal queued behind the landing has nothing left to keep alive.
      if (opts.unlessStopped && this.stopped) return { ok: true, tip: this.tip, written: new Map() };
      const base: Claim = { ...this.claim, gen: this.claim.gen + 1, at: this.repo.deps.clock.now() };
      const step = next(base);
      let r: ClaimPush;
      try {
        r = await pushClaim(opts.via ?? this.repo, { ref: this.ref, lease: this.tip, ...step });
      } catch (e) {
        // Outcome unknown: if that generation did land, the next push must not call it a fence.
        const attempted = e instanceof RemoteUnavailable ? e.data.attemptedTip : undefined;
        if (typeof attempted === 'string') this.unsure = { tip: attempted, claim: step.claim };
        throw e;
      }
      if (r.ok) {
        this.tip = r.tip;
        this.claim = step.claim;
        this.unsure = undefined;
      } else if (r.claimMoved) {
        if (this.unsure && r.remoteTip === this.unsure.tip) {
          // Our own earlier write landed after all: adopt it and push again on top of it.
          ({ tip: this.tip, claim: this.claim } = this.unsure);
          this.unsure = undefined;
          return run();
        }
        this.fenced = fencedAfterPush(this.item, this.ref, this.tip, r.remoteTip);
        this.abort.abort();
        throw this.fenced;
      }
      return r;
    };
    const p = this.chain.then(run, run);
    this.chain = p.catch(() => undefined); // the chain only orders; the caller gets p's error
    return p;
  }
}
