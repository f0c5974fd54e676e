// abcd status after many landings, on a real terminal: what needs attention first, never more
// rows than the terminal has (unless --all), names in natural order, --json complete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { writeRawRecord, type BareRemote } from '../harness/remote.js';
import { twoSessions, type Session } from '../harness/session.js';
import { onTty } from '../harness/tty.js';

// eslint-disable-next-line no-control-regex -- terminal escapes are what this strips from the captured screen
const visible = (s: string) => s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
const LANDED = 50;
const HELD = 5;

function claim(item: string, state: 'held' | 'done', at: number): string {
  return JSON.stringify({
    abcd: 'claim',
    v: 1,
    item: `local:item:${item}`,
    state,
    holder: { person: 'carol@example.com', host: 'box', session: 's1' },
    gen: 2,
    at,
    ttl: 3_600_000,
    ...(state === 'done' ? { landed: { main: 'main', tip: 'a'.repeat(40) } } : {}),
  });
}

describe('status of a fleet on a terminal', () => {
  let remote: BareRemote, b: Session;
  beforeAll(async () => {
    ({ remote, b } = await twoSessions());
    const now = Date.now();
    // Landed one second apart, item-50 the newest; written in text order so no order is free.
    const names = Array.from({ length: LANDED }, (_, i) => `item-${i + 1}`).sort();
    for (const n of names)
      await writeRawRecord(
        remote.dir,
        `refs/heads/abcd/claims/local/item/${n}`,
        claim(n, 'done', now - (LANDED - Number(n.slice(5))) * 1000),
      );
    for (let i = 1; i <= HELD; i++)
      await writeRawRecord(remote.dir, `refs/heads/abcd/claims/local/item/work-${i}`, claim(`work-${i}`, 'held', now));
  }, 120_000);
  afterAll(cleanupTemp);

  it('on 100x30 prints at most 30 rows, the held claims among them, and a one-line summary of landed work', async () => {
    const r = await onTty(b.dir, b.env, ['status'], 100, 30);
    expect(r.code).toBe(0);
    const lines = visible(r.screen)
      .replace(/\r?\n$/, '')
      .split(/\r?\n/);
    expect(lines.length).toBeLessThanOrEqual(30);
    const text = lines.join('\n');
    expect(text).toContain(`Claims (${HELD})`);
    for (let i = 1; i <= HELD; i++) expect(text).toMatch(new RegExp(`^work-${i}\\s+carol@example\\.com`, 'm'));
    expect(text).toMatch(
      /landed: 50 in the last 14d, latest 3: item-50 \([^)]*\), item-49 \([^)]*\), item-48 \([^)]*\);\s+abcd\s+status\s+--all\s+lists\s+every\s+one/,
    );
    // Held claims (attention) before the summary of landed work.
    expect(text.indexOf('Claims (')).toBeLessThan(text.indexOf('landed: 50'));
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(100);
  });

  it('--all prints every landed item, in natural order', async () => {
    const r = await onTty(b.dir, b.env, ['status', '--all'], 100, 30);
    expect(r.code).toBe(0);
    const names = [...visible(r.screen).matchAll(/^ {2}(item-\d+) on main at a{12}/gm)].map((m) => m[1]);
    expect(names).toEqual(Array.from({ length: LANDED }, (_, i) => `item-${i + 1}`));
  });

  it('--json stays complete, claims in natural order', async () => {
    const r = await b.abcd(['status', '--json']);
    const items = (r.json.claims as Array<{ item: string; state: string }>).map((c) => c.item);
    expect(items).toHaveLength(LANDED + HELD);
    expect(items.slice(0, 3)).toEqual(['item-1', 'item-2', 'item-3']);
    expect(items.indexOf('item-9')).toBeLessThan(items.indexOf('item-10'));
  });

  it('a terminal with few rows still shows the held claims, and says what it left out', async () => {
    const r = await onTty(b.dir, b.env, ['status'], 100, 12);
    const lines = visible(r.screen)
      .replace(/\r?\n$/, '')
      .split(/\r?\n/);
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines.join('\n')).toContain(`Claims (${HELD})`);
    expect(lines.join('\n')).toMatch(/more|work-5/);
  });
});
