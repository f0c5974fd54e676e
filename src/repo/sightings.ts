// When this clone first saw each record tip, by its own clock.
import { join } from 'node:path';
import type { Clock } from '../core/deps.js';
import { readIfExists, refFileName, writeAtomic } from './local-files.js';

/** What a sighting file holds: the tip, and when it was first seen on each clock abcd has. */
interface Sighting {
  tip: string;
  /** The wall clock at the first sighting (shown to people, and the fallback measure). */
  seenAt: number;
  /** The monotonic clock at the first sighting, and the boot it belongs to. */
  mono?: number;
  boot?: string;
}

/**
 * When this clone first saw a claim's tip. A takeover needs the reader's own observation
 * of the same tip for the takeover delay, so a fast clock elsewhere cannot make a claim look
 * stale early. How long it watched is measured on the machine's monotonic clock, never
 * between two wall-clock readings: a wall clock that jumps between two invocations (NTP
 * correcting a bad RTC, a VM resuming) does not count as watching. A watch across a reboot
 * starts again. Files under <git-common-dir>/abcd/sightings/. Concurrent writers race
 * harmlessly: the later first sighting wins, which only delays.
 */
export class Sightings {
  constructor(
    private readonly dir: string,
    private readonly clock: Pick<Clock, 'monotonic'>,
    private readonly boot: string | undefined,
  ) {}

  /**
   * Records a sighting of `tip` and returns when this clone first saw it, on the wall clock of
   * `now`: `now` minus how long it has really watched, so callers measure `now - firstSeen`.
   */
  async see(ref: string, tip: string, now: number): Promise<number> {
    const path = join(this.dir, refFileName(ref));
    const mono = this.clock.monotonic?.();
    const old = parse(await readIfExists(path));
    if (old && old.tip === tip) {
      const watched = watchedFor(old, now, mono, this.boot);
      if (watched !== undefined) return now - watched;
    }
    const fresh: Sighting = { tip, seenAt: now, ...(mono !== undefined ? { mono } : {}), ...(this.boot ? { boot: this.boot } : {}) };
    await writeAtomic(path, JSON.stringify({ ref, ...fresh }) + '\n');
    return now;
  }
}

/**
 * How long the sighting `old` has been watched, or undefined when the watch must start again
 * (another boot, a monotonic clock that went back, a file from before monotonic readings).
 */
function watchedFor(old: Sighting, now: number, mono: number | undefined, boot: string | undefined): number | undefined {
  if (mono === undefined) return now - old.seenAt; // a fake clock with no monotonic reading
  if (old.mono === undefined || mono < old.mono) return undefined;
  const monoWatched = mono - old.mono;
  if (boot !== undefined && old.boot !== undefined) return old.boot === boot ? monoWatched : undefined;
  // No boot id (not Linux): a reboot may hide behind a monotonic clock that grew since; the
  // wall clock bounds it, so a jump forward of either alone counts for nothing.
  return Math.min(monoWatched, now - old.seenAt);
}

function parse(text: string | undefined): Sighting | undefined {
  if (!text) return undefined;
  let v: Partial<Record<keyof Sighting, unknown>> | null;
  try {
    v = JSON.parse(text) as Partial<Record<keyof Sighting, unknown>> | null;
  } catch {
    // a single parse: a torn or foreign file is treated as never seen (fails safe: delays a takeover)
    return undefined;
  }
  if (typeof v !== 'object' || v === null || typeof v.tip !== 'string' || typeof v.seenAt !== 'number') return undefined;
  return {
    tip: v.tip,
    seenAt: v.seenAt,
    ...(typeof v.mono === 'number' && Number.isFinite(v.mono) ? { mono: v.mono } : {}),
    ...(typeof v.boot === 'string' ? { boot: v.boot } : {}),
  };
}
