// How long this clone has watched a claim's tip is measured on the monotonic clock with the
// boot it belongs to: a wall clock that jumps is no watching, and a reboot starts the watch again.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { refFileName } from '../../src/repo/local-files.js';
import { Sightings } from '../../src/repo/sightings.js';
import { cleanupTemp, tempDir } from '../harness/git-env.js';

afterAll(cleanupTemp);

const REF = 'refs/heads/abcd/claims/local/item/watched';
const DAY = 86_400_000;

/** Sightings whose monotonic clock reads `mono.ms` (moved by the test) on boot `boot`. */
async function sightings(boot: string | undefined, mono: { ms: number }, dir?: string) {
  return new Sightings(dir ?? (await tempDir('sightings')), { monotonic: () => mono.ms }, boot);
}

describe('sightings', () => {
  it('a wall clock that jumps 13 days forward between two looks counts as the second the monotonic clock moved', async () => {
    const mono = { ms: 5_000 };
    const s = await sightings('boot-a', mono);
    const t0 = Date.UTC(2026, 11, 1);
    expect(await s.see(REF, 'tip1', t0 + 2 * DAY)).toBe(t0 + 2 * DAY);
    mono.ms += 1_000;
    const now = t0 + 15 * DAY;
    expect(now - (await s.see(REF, 'tip1', now))).toBe(1_000);
  });

  it('a wall clock that jumps back does not shorten the watch either', async () => {
    const mono = { ms: 0 };
    const s = await sightings('boot-a', mono);
    await s.see(REF, 'tip1', 1_000_000);
    mono.ms += 30_000;
    expect(500_000 - (await s.see(REF, 'tip1', 500_000))).toBe(30_000);
  });

  it('a new tip, another boot, or a monotonic clock that went back starts the watch again', async () => {
    const dir = await tempDir('sightings-boot');
    const mono = { ms: 100_000 };
    await (await sightings('boot-a', mono, dir)).see(REF, 'tip1', 1_000);
    mono.ms += 60_000;
    expect(await (await sightings('boot-b', mono, dir)).see(REF, 'tip1', 90_000)).toBe(90_000);
    mono.ms += 10_000;
    expect(100_000 - (await (await sightings('boot-b', mono, dir)).see(REF, 'tip1', 100_000))).toBe(10_000);
    expect(await (await sightings('boot-b', mono, dir)).see(REF, 'tip2', 110_000)).toBe(110_000);
    mono.ms = 5;
    expect(await (await sightings(undefined, mono, dir)).see(REF, 'tip2', 120_000)).toBe(120_000);
  });

  it('without a boot id, the watch is the lesser of the monotonic and the wall clock', async () => {
    const mono = { ms: 0 };
    const s = await sightings(undefined, mono);
    await s.see(REF, 'tip1', 0);
    mono.ms = 10 * DAY; // e.g. another boot with a longer uptime
    expect(5_000 - (await s.see(REF, 'tip1', 5_000))).toBe(5_000);
    mono.ms = 10 * DAY + 2_000;
    expect(DAY - (await s.see(REF, 'tip1', DAY))).toBe(DAY);
  });

  it('a torn, foreign or null sighting file reads as never seen: the watch starts now', async () => {
    const mono = { ms: 0 };
    const dir = await tempDir('sightings');
    const s = await sightings('boot-a', mono, dir);
    const now = Date.UTC(2026, 11, 1);
    for (const text of ['{"tip":"tip1","seenAt', 'null', '"tip1"', '[1]']) {
      await writeFile(join(dir, refFileName(REF)), text);
      expect(await s.see(REF, 'tip1', now)).toBe(now);
    }
  });
});
