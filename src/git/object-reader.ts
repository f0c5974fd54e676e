// One `git cat-file --batch` for a whole verb: started on the first read, answering every read
// after it (the clone's and each of its worktrees', which share the object store), ended when it
// has been idle a moment. git looks for an object it lacks again on every miss (loose objects and
// new packs alike), so a reader started before a fetch or a rebase still sees what they wrote.
// Only specs rooted at a full object id are read here: what a ref or HEAD names can change while
// the process runs, what an id names cannot.
import type { GitObject, Tried } from './object-types.js';
import type { GitFailure, GitRunner, RunResult } from './runner.js';

/** `<oid>`, `<oid>:<path>` or `<oid>^{type}`: the answer is fixed by the id, whenever it is asked. */
const BY_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})(?:$|[:^])/;
const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) (blob|tree|commit|tag) (\d{1,12})$/;

// Idle this long, the process ends; the next read starts another. Long enough to span the git
// processes between a verb's reads, short enough that no test run piles them up.
const IDLE_MS = 5000;
// A process this old takes no new reads (they go to a fresh one), so its timeout never ends a read.
const MAX_AGE_MS = 20_000;

interface Pending {
  specs: readonly string[];
  found: (GitObject | undefined)[];
  done: (r: Tried<(GitObject | undefined)[]>) => void;
}

/** Whether the reader can answer `spec` (otherwise the caller runs its own `cat-file`). */
export function readableById(spec: string): boolean {
  return BY_ID.test(spec) && !spec.includes('\n');
}

class BatchProcess {
  readonly started = Date.now();
  private readonly queue: Pending[] = [];
  // What git sent that is not parsed yet, kept as it came: joined only once the answer in
  // progress has all its bytes, so a large object costs one copy, not one per chunk.
  private chunks: Buffer[] = [];
  private held = 0;
  /** Bytes the answer in progress needs before it can be parsed (its header and body). */
  private need = 0;
  private stdin: { write: (chunk: string) => void; end: () => void; hold: (on: boolean) => void } | undefined;
  private idle: NodeJS.Timeout | undefined;
  ended = false;

  constructor(r: GitRunner, onEnd: (p: BatchProcess) => void) {
    void r
      .run(['cat-file', '--batch'], {
        feed: (pipe) => {
          this.stdin = pipe;
          // Reads asked before git started (none, as spawn calls this at once) go now.
          if (this.queue.length) pipe.write(this.queue.flatMap((q) => q.specs.map((s) => `${s}\n`)).join(''));
          else this.settle();
        },
        onStdout: (chunk) => this.take(chunk),
      })
      .then((res) => {
        this.ended = true;
        onEnd(this);
        this.failAll(res);
      });
  }

  read(p: Pending): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    this.queue.push(p);
    this.stdin?.hold(true);
    this.stdin?.write(p.specs.map((s) => `${s}\n`).join(''));
  }

  /** Stops taking reads: stdin closes once what is asked is answered. */
  retire(): void {
    this.ended = true;
    if (!this.queue.length) this.stdin?.end();
  }

  private take(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.held += chunk.length;
    if (this.held < this.need) return;
    const buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.held);
    let at = 0;
    this.need = 0;
    for (;;) {
      const p = this.queue[0];
      if (!p) break;
      if (p.found.length === p.specs.length) {
        this.queue.shift();
        p.done({ ok: true, value: p.found });
        continue;
      }
      const nl = buf.indexOf(10, at);
      if (nl < 0) break;
      const line = buf.toString('latin1', at, nl);
      const m = HEADER.exec(line);
      if (!m) {
        // `<spec> missing` (or ambiguous): no contents follow.
        p.found.push(undefined);
        at = nl + 1;
        continue;
      }
      const size = Number(m[3]);
      if (buf.length < nl + 1 + size + 1) {
        this.need = nl + 1 + size + 1 - at;
        break;
      }
      p.found.push({ oid: m[1]!, type: m[2]!, content: Buffer.from(buf.subarray(nl + 1, nl + 1 + size)) });
      at = nl + 1 + size + 1;
    }
    const rest = buf.subarray(at);
    this.chunks = rest.length ? [rest] : [];
    this.held = rest.length;
    this.settle();
  }

  /** With nothing asked, the process no longer holds the verb open, and ends after a while. */
  private settle(): void {
    if (this.queue.length || !this.stdin) return;
    if (this.ended) return this.stdin.end();
    this.stdin.hold(false);
    this.idle ??= setTimeout(() => this.retire(), IDLE_MS).unref();
  }

  private failAll(res: RunResult): void {
    clearTimeout(this.idle);
    const failure: GitFailure = {
      exitCode: res.exitCode === 0 ? 1 : res.exitCode,
      stderr: res.stderr || 'git cat-file --batch ended before it answered',
      timedOut: res.timedOut,
    };
    for (const p of this.queue.splice(0)) p.done({ ok: false, failure });
  }
}

/** The verb's object reader: one process at a time, started when first asked. */
export class ObjectReader {
  private current: BatchProcess | undefined;

  constructor(private readonly r: GitRunner) {}

  /** Each spec's object, in order; undefined: missing. Every spec must be readableById. */
  read(specs: readonly string[]): Promise<Tried<(GitObject | undefined)[]>> {
    if (!specs.length) return Promise.resolve({ ok: true, value: [] });
    return new Promise((done) => {
      const p = this.process();
      p.read({ specs, found: [], done });
    });
  }

  private process(): BatchProcess {
    const old = this.current;
    if (old && !old.ended && Date.now() - old.started < MAX_AGE_MS) return old;
    old?.retire();
    const p = new BatchProcess(this.r, (ended) => {
      if (this.current === ended) this.current = undefined;
    });
    this.current = p;
    return p;
  }
}
