// The watcher of one cycle: polls the records and main (one round trip per poll) for requests
// made while the cycle runs, judges each once, folds every request of one poll into one
// envelope and appends it to the agent's mailbox while the agent runs. After the agent exits
// it is asked once more (afterExit) so the cycle can re-invoke the agent with what came late.
import { agentFileSize, appendToAgentFile } from './agent-files.js';
import type { ItemDoc } from '../items/source.js';
import { formatItem } from '../records/item.js';
import { receiptRef } from '../records/refs.js';
import type { Repo } from '../repo/repo.js';
import { readSnapshot, type Snapshot } from '../repo/snapshot.js';
import type { Taken } from './claim.js';
import type { RunContext } from './context.js';
import { buildEnvelope } from '../steering/envelope.js';
import { reinvokeTimeout, whyNotSteer, type SteerSettings } from './steer-settings.js';
import { itemBlob, itemChangeCandidate, pendingCandidate, requestKey, steerCandidates, type SteerCandidate } from '../steering/requests.js';
import { commentCandidates } from '../steering/comments.js';

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
  private windowEnd = 0;
  private timer?: NodeJS.Timeout;
  private polling: Promise<void> = Promise.resolve();
  /** Why the last request was left for the pending run (cap, time), if one was. */
  settled?: string;

  constructor(
    private readonly ctx: RunContext,
    private readonly lane: Repo,
    private readonly o: { item: ItemDoc; taken: Taken; mailbox: string; runHead: string; settings: SteerSettings },
  ) {
    this.key = formatItem(o.item.key);
    this.mainTip = o.runHead;
    if (o.taken.answered) this.judged.add(requestKey({ kind: 'pending', id: o.taken.answered.tip }));
    for (const c of o.item.comments ?? []) this.judged.add(requestKey({ kind: 'comment', id: String(c.id) }));
    this.commentsSince = o.taken.claim.at;
  }

  /**
   * Before the agent starts: open requests become part of its task (no steer spent). They
   * are read from `seen`, the read the claim was just taken on (no second round trip); one
   * that arrives after it reaches the agent in flight or after it exits, like any later one.
   */
  async prime(seen?: Snapshot): Promise<void> {
    this.blob = await itemBlob(this.lane.git, this.o.runHead, this.o.item.path);
    const found = await this.poll(seen);
    if (found.length) this.deliver(found);
  }

  /** The agent was started: deliver in flight until `windowEnd` (its timeout) nears. */
  begin(windowEnd: number): void {
    this.running = true;
    this.windowEnd = windowEnd;
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
   * After the agent exited 0: one more poll. When requests came and the cap and the time
   * allow, their envelope is appended and the cycle re-invokes the agent in the same
   * worktree; returns the mailbox offset where it starts and the time the agent may take.
   */
  async afterExit(): Promise<{ from: number; timeoutMs: number } | undefined> {
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
    const from = agentFileSize(this.o.mailbox);
    this.deliver(found);
    this.spend();
    return { from, timeoutMs };
  }

  /** The receipt's lease: the item's receipt tip while this cycle holds the claim. */
  get receiptTip(): string | null | undefined {
    return this.receiptLease;
  }

  private async steerInFlight(): Promise<void> {
    const found = await this.poll();
    if (!found.length || !this.running) return;
    if (!this.allows(this.lane.deps.clock.now(), this.windowEnd)) return;
    this.deliver(found);
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

  /** Appends one envelope; the requests in it count as consumed from here on. */
  private deliver(found: SteerCandidate[]): void {
    const now = this.lane.deps.clock.now();
    // A mailbox the agent replaced (a symlink, a folder) gets nothing: the requests stay open.
    if (!appendToAgentFile(this.o.mailbox, buildEnvelope({ item: this.key, runId: this.ctx.runId, at: now, entries: found }))) return;
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
