// When this clone first saw each record tip, by its own clock.
import { join } from 'node:path';
import { readIfExists, refFileName, writeAtomic } from './local-files.js';

/**
 * When this clone first saw a claim's tip. A takeover needs the reader's own observation
 * of the same tip for the takeover delay (judged by this computer's clock alone), so a fast clock elsewhere
 * cannot make a claim look stale early. Files under <git-common-dir>/abcd/sightings/.
 * Concurrent writers race harmlessly: the later first-seen time wins, which only delays.
 */
export class Sightings {
  constructor(private readonly dir: string) {}

  /** Records a sighting of `tip` and returns when this clone first saw that tip. */
  async see(ref: string, tip: string, now: number): Promise<number> {
    const path = join(this.dir, refFileName(ref));
    const old = parse(await readIfExists(path));
    if (old && old.tip === tip) return old.seenAt;
    await writeAtomic(path, JSON.stringify({ ref, tip, seenAt: now }) + '\n');
    return now;
  }
}

function parse(text: string | undefined): { tip: string; seenAt: number } | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as { tip?: unknown; seenAt?: unknown };
    return typeof v.tip === 'string' && typeof v.seenAt === 'number' ? { tip: v.tip, seenAt: v.seenAt } : undefined;
  } catch {
    return undefined; // a torn or foreign file: treat as never seen (fails safe: delays a takeover)
  }
}
