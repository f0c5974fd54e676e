// One lane run = one result record, `abcd/lanes/<run-id>`, rewritten as the run goes (start,
// each cycle, the end) by compare-and-swap on its own tip. Writes are serialized and
// coalesced: a cycle never waits on one, and the final write carries everything.
import { encodeLaneResult, MAX_RESULT_CYCLES, type CycleRecord, type LaneResultRecord } from '../../records/lane-result.js';
import { laneRef } from '../../records/refs.js';
import { writeRecordCommit } from '../../records/objects.js';
import type { Repo } from '../../repo/repo.js';
import { readPidSpace, readStartTime } from '../../machine/gate/process.js';
import { addCounts, safeUsd } from '../../machine/budget/usage.js';
import type { LanePhase, UsageSoFar } from '../run/progress.js';
import { keepNewestTails } from './output-tail.js';

// A running record is rewritten at least this often, so status can tell a lane that died.
const HEARTBEAT_MS = 60_000;
// Changes this close together go out in one write (a cycle's end and the run's end, lanes
// finishing together): each write is a push.
const COALESCE_MS = 300;

export class RunRecorder {
  private tip: string | null = null;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;
  private timer?: NodeJS.Timeout;
  private soon?: NodeJS.Timeout;
  /** The last write's failure, if any (the final publish reports it). */
  lastError?: Error;
  readonly record: LaneResultRecord;

  constructor(
    private readonly repo: Repo,
    init: Omit<LaneResultRecord, 'abcd' | 'v' | 'state' | 'at' | 'ttl' | 'current' | 'cycles' | 'deferred' | 'usage'>,
  ) {
    this.record = {
      abcd: 'lane',
      v: 1,
      ...init,
      state: 'running',
      at: init.startedAt,
      ttl: 3 * HEARTBEAT_MS,
      current: [],
      cycles: [],
      deferred: [],
      usage: 0,
      ...selfProcess(),
    };
  }

  get ref(): string {
    return laneRef(this.record.runId);
  }

  /** The first write comes with the first claim (or the end): a run that finds no work writes once. */
  start(): void {
    this.timer = setInterval(() => void this.publish(), HEARTBEAT_MS);
    this.timer.unref();
  }

  working(item: string, on: boolean): void {
    const now = this.repo.deps.clock.now();
    const rest = this.record.current.filter((c) => c.item !== item);
    // A cycle starts with its agent (the worktree it prepares first is the agent's).
    this.record.current = on ? [...rest, { item, since: now, phase: 'agent', phaseAt: now }] : rest;
    if (on) this.publishSoon();
  }

  /** An item's cycle entered another phase: one write, which carries its usage so far. */
  phase(item: string, p: { phase: LanePhase; at: number; usage: UsageSoFar }): void {
    const c = this.record.current.find((x) => x.item === item);
    if (!c || c.phase === p.phase) return;
    Object.assign(c, { phase: p.phase, phaseAt: p.at, usage: p.usage.tokens, ...(p.usage.costUsd ? { costUsd: p.usage.costUsd } : {}) });
    this.publishSoon();
  }

  /** Told of each cycle as it is recorded (lanes.notify). */
  onCycle?: (c: CycleRecord) => void;

  addCycle(c: CycleRecord): void {
    this.onCycle?.(c);
    this.record.cycles = keepNewestTails([...this.record.cycles, c].slice(-MAX_RESULT_CYCLES));
    // Capped like every usage sum: a record with an unsafe number would not be written at all.
    this.record.usage = addCounts(this.record.usage, c.usage ?? 0);
    if (c.spend) this.record.costUsd = safeUsd((this.record.costUsd ?? 0) + c.spend.costUsd);
    this.publishSoon();
  }

  private publishSoon(): void {
    this.soon ??= setTimeout(() => {
      this.soon = undefined;
      void this.publish();
    }, COALESCE_MS);
  }

  defer(item: string, why: string): void {
    if (this.record.deferred.some((d) => d.item === item)) return;
    this.record.deferred = [...this.record.deferred, { item, why: why.slice(0, 480) }].slice(-MAX_RESULT_CYCLES);
  }

  /** The last write: state finished and how the run ended. Awaited. */
  async finish(end: string): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.soon);
    this.soon = undefined;
    this.record.state = 'finished';
    this.record.current = [];
    this.record.end = end;
    await this.publish();
  }

  /** Writes the record as it stands now; a write in flight is followed by one more. */
  publish(): Promise<void> {
    if (this.dirty) return this.writing;
    this.dirty = true;
    this.writing = this.writing.then(async () => {
      this.dirty = false;
      try {
        const at = this.repo.deps.clock.now();
        const rec = { ...this.record, at: Math.max(at, this.record.startedAt) };
        const oid = await writeRecordCommit({
          git: this.repo.git,
          store: this.repo.objects,
          content: encodeLaneResult(rec),
          parent: this.tip,
          message: `lane run ${rec.runId}: ${rec.state}`,
          author: this.repo.author,
          atMs: at,
        });
        const r = await this.repo.store.push([{ ref: this.ref, newOid: oid, lease: this.tip }], { atomic: true });
        if (r.ok) this.tip = oid;
        else this.lastError = new Error(`the result record ${this.ref} moved under this run; it was not rewritten`);
      } catch (e) {
        this.lastError = e as Error;
      }
    });
    return this.writing;
  }
}

/** This process as the record names it, so status on this computer can tell it died (ADR 0063). */
function selfProcess(): Pick<LaneResultRecord, 'process'> {
  const space = readPidSpace();
  return space ? { process: { space, pid: process.pid, start: readStartTime(process.pid) } } : {};
}
