// The watcher of one cycle: polls the records and main (one round trip per poll) for requests
// made while the cycle runs, judges each once, folds every request of one poll into one
// envelope and hands it to a live agent session while a turn runs. After a turn ends it is
// asked once more (afterExit) so the cycle can run one more turn with what came late.
import type { ItemDoc } from '../../items/source.js';
import { formatItem } from '../../records/item.js';
import { receiptRef } from '../../records/refs.js';
import type { Repo } from '../../repo/repo.js';
import { readSnapshot, type Snapshot } from '../../repo/snapshot.js';
import type { Taken } from '../cycle/claim.js';
import type { RunContext } from '../cycle/context.js';
import { buildEnvelope } from '../../steering/envelope.js';
import { reinvokeTimeout, whyNotSteer, type SteerSettings } from '../guards/steer-settings.js';
import {
  itemBlob,
  itemChangeCandidate,
  pendingCandidate,
  requestKey,
  steerCandidates,
  type SteerCandidate,
} from '../../steering/requests.js';
import { commentCandidates } from '../../steering/comments.js';

// Steers spent per run and item: the cap bounds a run across all its cycles (and re-invocations).
const spentByRun = new WeakMap<RunContext, Map<string, number>>();

export class SteerWatcher {
  private readonly key: string;
  private readonly judged = new Set<string>();
  /** Every request that reached the agent in this cycle, in order. */
  readonly delivered: SteerCandidate[] = [];
  private receiptLease: string | null | undefined;
  private mainTip: string;
  /** Comments written since this instant are news; older ones were in the item the agent started from. */
  private readonly commentsSince: number;
  private blob: string | undefined;
  private running = false;
  private sink: ((envelope: string) => Promise<boolean>) | undefined;
  private windowEnd = 0;
  private timer?: NodeJS.Timeout;
  private polling: Promise<void> = Promise.resolve();
  /** Why the last request was left for the pending run (cap, time), if one was. */
  settled?: string;

  constructor(
    private readonly ctx: RunContext,
    private readonly lane: Repo,
    private readonly o: { item: ItemDoc; taken: Taken; runHead: string; settings: SteerSettings },
  ) {
    this.key = formatItem(o.item.key);
    this.mainTip = o.runHead;
    if (o.taken.answered) this.judged.add(requestKey({ kind: 'pending', id: o.taken.answered.tip }));
    for (const c of o.item.comments ?? []) this.judged.add(requestKey({ kind: 'comment', id: String(c.id) }));
    this.commentsSince = o.taken.claim.at;
  }

  /**
   * Before the agent starts: open requests become part of its task (no steer spent); returns
   * their envelope for the first turn's prompt. They are read from `seen`, the read the claim
   * was just taken on (no second round trip); one that arrives after it reaches the agent in
   * flight or after its turn, like any later one.
   */
  async prime(seen?: Snapshot): Promise<string | undefined> {
    this.blob = await itemBlob(this.lane.git, this.o.runHead, this.o.item.path);
    const found = await this.poll(seen);
    if (!found.length) return undefined;
    const envelope = this.envelopeOf(found);
    this.markDelivered(found);
    return envelope;
  }

  /**
   * A turn was started: deliver in flight through `sink` (a live session's steer) until
   * `windowEnd` (its timeout) nears. Without a sink, requests wait for the turn's end.
   */
  begin(windowEnd: number, sink?: (envelope: string) => Promise<boolean>): void {
    this.running = true;
    this.windowEnd = windowEnd;
    this.sink = sink;
    if (!sink) return;
    const tick = () => {
      this.polling = this.steerInFlight().catch(() => undefined); // a failed poll: the next one tries
      void this.polling.then(() => {
        if (this.running) this.timer = setTimeout(tick, this.o.settings.pollMs);
      });
    };
    this.timer = setTimeout(tick, this.o.settings.pollMs);
  }

  /** The agent exited: nothing more is appended (a late append would reach no one). */
  exited(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  /**
   * After a turn ended well: one more poll. When requests came and the cap and the time
   * allow, returns their envelope for the next turn of the same session and the time that
   * turn may take; the requests count as delivered once the agent took it (`taken`).
   */
  async afterExit(): Promise<{ envelope: string; timeoutMs: number; taken: () => void } | undefined> {
    this.exited();
    await this.polling;
    const found = await this.poll();
    const now = this.lane.deps.clock.now();
    const timeoutMs = reinvokeTimeout({
      now,
      deadline: this.ctx.deadline,
      agentTimeoutMs: this.ctx.agentTimeoutMs,
      reserveMs: this.o.settings.reserveMs,
    });
    if (!found.length || !this.allows(now, now + timeoutMs)) return undefined;
    this.spend();
    let once = false;
    return {
      envelope: this.envelopeOf(found),
      timeoutMs,
      taken: () => {
        if (once) return;
        once = true;
        this.markDelivered(found);
      },
    };
  }

  /** The receipt's lease: the item's receipt tip while this cycle holds the claim. */
  get receiptTip(): string | null | undefined {
    return this.receiptLease;
  }

  private async steerInFlight(): Promise<void> {
    const found = await this.poll();
    const sink = this.sink;
    if (!found.length || !this.running || !sink) return;
    if (!this.allows(this.lane.deps.clock.now(), this.windowEnd)) return;
    // A steer the session could not hand over (its agent gone, its channel replaced) stays open.
    if (!(await sink(this.envelopeOf(found)))) return;
    this.markDelivered(found);
    this.spend();
  }

  private allows(now: number, windowEnd: number): boolean {
    this.settled = whyNotSteer({ spent: this.spentMap().get(this.key) ?? 0, now, windowEnd, settings: this.o.settings });
    return this.settled === undefined;
  }

  private spentMap(): Map<string, number> {
    let m = spentByRun.get(this.ctx);
    if (!m) spentByRun.set(this.ctx, (m = new Map()));
    return m;
  }

  private spend(): void {
    const m = this.spentMap();
    m.set(this.key, (m.get(this.key) ?? 0) + 1);
  }

  /** The requests of one poll, folded into one envelope. */
  private envelopeOf(found: SteerCandidate[]): string {
    return buildEnvelope({ item: this.key, runId: this.ctx.runId, at: this.lane.deps.clock.now(), entries: found });
  }

  /** The requests reached the agent: they count as consumed from here on. */
  private markDelivered(found: SteerCandidate[]): void {
    for (const c of found) {
      this.judged.add(requestKey(c.req));
      this.delivered.push(c);
    }
  }

  /** One round trip (none given `seen`): the records and main. Requests not judged yet, oldest first. */
  private async poll(seen?: Snapshot): Promise<SteerCandidate[]> {
    const snap = seen ?? (await readSnapshot(this.lane, [this.ctx.main.fetchSpec]));
    this.readReceiptLease(snap);
    const a = { lane: this.lane.me };
    const found = steerCandidates(snap, this.key, a);
    const pending = pendingCandidate(snap, this.o.item.key, a);
    if (pending) found.push(pending);
    found.push(...commentCandidates(await this.ctx.source.commentsSince(this.o.item.key, this.commentsSince)));
    const tip = await this.ctx.main.tipIn(snap);
    if (tip !== this.mainTip) {
      this.mainTip = tip;
      const blob = await itemBlob(this.lane.git, tip, this.o.item.path);
      if (blob !== this.blob) {
        this.blob = blob;
        found.push(await itemChangeCandidate(this.lane.git, { tip, path: this.o.item.path, blob, at: this.lane.deps.clock.now() }));
      }
    }
    return found.filter((c) => !this.judged.has(requestKey(c.req)));
  }

  private readReceiptLease(snap: Snapshot): void {
    const ref = receiptRef(this.o.item.key);
    this.receiptLease = snap.receipts.get(ref)?.tip ?? snap.refused.get(ref)?.tip ?? null;
  }
}
