// What this clone knows about its clock against the clocks of the sessions writing records.
// A record that changed between two of this clone's reads was written in between, so the
// writer's `at` brackets this clock's offset from the writer's (ADR 0017). Files under
// <git-common-dir>/abcd/clock/: `last-read.json` (tips of the last read) and one file per
// writer with the tightest bracket seen lately. Every file is replaced atomically; processes
// racing on one lose at most an observation, which only makes a reader more cautious.
import { createHash } from '../core/builtins.js';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { unlessMissing, unlessSystemError } from '../core/best-effort.js';
import { readIfExists, writeAtomic } from './local-files.js';

/** This clock minus a writer's lies within [lo, hi] (milliseconds), as seen at `seenAt`. */
export interface SkewBracket {
  writer: string;
  lo: number;
  hi: number;
  seenAt: number;
}

/** The tips of the claim records one read saw, and when that read ended (this clock). */
export interface LastRead {
  at: number;
  tips: Record<string, string>;
}

// Brackets older than this (on this clock) are forgotten: clocks get fixed.
const BRACKET_LIFETIME_MS = 86_400_000;

export class SkewLog {
  constructor(private readonly dir: string) {}

  async readLastRead(): Promise<LastRead | undefined> {
    const v = parseJson(await readIfExists(join(this.dir, 'last-read.json'))) as Partial<LastRead> | undefined;
    return v && typeof v.at === 'number' && v.tips && typeof v.tips === 'object' ? { at: v.at, tips: v.tips } : undefined;
  }

  async writeLastRead(read: LastRead): Promise<void> {
    await writeAtomic(join(this.dir, 'last-read.json'), JSON.stringify(read) + '\n');
  }

  /** Narrows each writer's bracket with a new one; a bracket that contradicts the old replaces it. */
  async record(brackets: readonly SkewBracket[]): Promise<void> {
    for (const b of brackets) {
      const path = this.pathOf(b.writer);
      const old = toBracket(parseJson(await readIfExists(path)));
      const lo = old ? Math.max(old.lo, b.lo) : b.lo;
      const hi = old ? Math.min(old.hi, b.hi) : b.hi;
      const fresh = old && b.seenAt - old.seenAt < BRACKET_LIFETIME_MS && lo <= hi;
      await writeAtomic(path, JSON.stringify(fresh ? { writer: b.writer, lo, hi, seenAt: b.seenAt } : b) + '\n');
    }
  }

  /** Every writer's bracket still in date at `now`; stale ones are removed. */
  async brackets(now: number): Promise<SkewBracket[]> {
    const dir = join(this.dir, 'writers');
    // No bracket seen yet: no folder.
    const names = await readdir(dir).catch(unlessMissing<string[]>([]));
    const out: SkewBracket[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      // A bracket the disk will not read (a link loop, a damaged entry) says nothing: it is
      // removed below like a stale one. A bug is thrown on.
      const b = toBracket(parseJson(await readIfExists(join(dir, name)).catch(unlessSystemError(undefined))));
      // A bracket from this clock's future means the clock went back: it says nothing now.
      if (!b || now - b.seenAt > BRACKET_LIFETIME_MS || b.seenAt > now) {
        await rm(join(dir, name), { force: true });
        continue;
      }
      out.push(b);
    }
    return out;
  }

  private pathOf(writer: string): string {
    return join(this.dir, 'writers', createHash('sha1').update(writer).digest('hex') + '.json');
  }
}

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // a single parse: a torn or foreign file is no knowledge, which only makes a reader wait
  }
}

function toBracket(v: unknown): SkewBracket | undefined {
  const b = v as Partial<SkewBracket> | undefined;
  if (!b || typeof b.writer !== 'string') return undefined;
  if (![b.lo, b.hi, b.seenAt].every((x) => typeof x === 'number' && Number.isFinite(x))) return undefined;
  return b as SkewBracket;
}
