// abcd serve's server and page without a remote: a fleet of 200 items and 20 lanes fits a
// phone's width in headless Chromium; many viewers share one read per interval; the page's
// pieces escape what records hold.
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { browserMissing, openBrowser } from '../harness/browser.js';
import { startServer, type ServeOptions } from '../../src/serve/server.js';
import type { Fleet, RunRow } from '../../src/serve/fleet.js';
import { itemRows, spendOf } from '../../src/serve/fleet.js';
import type { ItemView } from '../../src/items/items.js';
import type { CycleRecord } from '../../src/records/lane-result.js';
import type { StatusData } from '../../src/status/status.js';
import { html } from '../../src/serve/html.js';
import { latestActivity } from '../../src/serve/local-logs.js';
import { systemClock } from '../../src/core/deps.js';

afterAll(cleanupTemp);

const NOW = Date.now();
const OUTCOMES: CycleRecord['outcome'][] = ['landed', 'failed', 'timeout', 'no-change'];

function item(i: number): ItemView {
  const slug = `item-${String(i).padStart(3, '0')}-with-a-rather-long-name-for-a-phone`;
  const readiness: ItemView['readiness'] = i % 5 === 0 ? 'done' : i % 7 === 0 ? 'blocked' : i < 20 ? 'held' : 'ready';
  return {
    key: `local:item:${slug}`,
    slug,
    title: `Item ${i}: a title long enough to wrap on a small screen, with <b>markup</b> that stays text`,
    status: readiness === 'done' ? 'done' : 'ready',
    dependsOn: [],
    readiness,
    blockedBy: readiness === 'blocked' ? ['item-001'] : [],
    claim:
      readiness === 'held'
        ? { state: 'held', holder: `person@example.com/host-${i}/session-${i}`, expiresAt: NOW + 60_000, live: true }
        : null,
    path: `.abcd/items/${slug}.md`,
    addedAt: null,
  };
}

function fleetOf(items: ItemView[]): Fleet {
  const runs: RunRow[] = Array.from({ length: 20 }, (_, r) => ({
    runId: `20261201T${String(r).padStart(6, '0')}Z-abc${r}`,
    verb: 'drain',
    holder: `person@example.com/host-${r}/session-${r}`,
    runtime: r % 2 ? 'claude' : 'codex',
    state: r < 20 ? 'running' : 'finished',
    startedAt: NOW - 3_600_000 + r * 1000,
    at: NOW - 1000,
    cycles: Array.from({ length: 10 }, (_, c) => ({
      item: items[(r * 10 + c) % items.length]!.slug,
      outcome: OUTCOMES[(r + c) % OUTCOMES.length]!,
      reason: 'check "npm test" exited 1 <script>alert(1)</script>',
      startedAt: NOW - 3_500_000 + c * 300_000,
      durationMs: 200_000,
      usage: 12_000 + c,
      spend: { inputTokens: 10_000, outputTokens: 2000, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.12 * (c + 1), turns: 3 },
    })),
  }));
  const lanes = runs.map((r, i) => ({
    runId: r.runId,
    verb: 'drain' as const,
    holder: r.holder,
    lifecycle: 'poll',
    lanes: 1,
    state: 'running' as const,
    startedAt: r.startedAt,
    at: r.at,
    current: [{ item: items[i % items.length]!.slug, forMs: 125_000, phase: 'agent', phaseForMs: 1000, usage: 45_000, costUsd: 1.5 }],
    landed: 1,
    notLanded: 1,
    cycles: [],
    deferred: [],
    usage: 0,
  }));
  const status = {
    remote: 'origin',
    readAt: NOW,
    lanes,
    queue: items.slice(0, 12).map((it, i) => ({
      position: i + 1,
      item: it.slug,
      holder: `person@example.com/host-${i}/session-${i}`,
      branch: `abcd/work/${it.slug}`,
      head: 'a'.repeat(40),
      main: 'b'.repeat(40),
      since: NOW,
      alive: true,
      ...(i < 4 ? { batch: { of: items[0]!.slug, head: i === 0 } } : {}),
    })),
  } as unknown as StatusData;
  return { readAt: NOW, status, items: itemRows(items, runs, NOW), itemsRefused: 0, runs, spend: spendOf(runs, NOW) };
}

/** Opens an event stream with the cookie; resolves with a function that closes it. */
function openStream(port: number, cookie: string): Promise<() => void> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/events', headers: { cookie } }, (res) => {
      res.on('data', () => undefined);
      resolve(() => req.destroy());
    });
    req.on('error', () => undefined);
    req.end();
  });
}

/** The server over these reads, on a free port of loopback, reading on `everyMs` (default: a minute). */
function serve(o: Pick<ServeOptions, 'read'> & Partial<Pick<ServeOptions, 'actions' | 'transcript' | 'everyMs'>>) {
  return startServer({
    actions: () => Promise.resolve(new Map()),
    transcript: () => Promise.resolve(undefined),
    everyMs: 60_000,
    ...o,
    port: 0,
    clock: systemClock,
  });
}

/** The session cookie the server hands the first visit. */
async function cookieOf(url: string): Promise<string> {
  const first = await fetch(url, { redirect: 'manual' });
  return first.headers.get('set-cookie')!.split(';')[0]!;
}

describe('abcd serve at fleet scale', () => {
  const missing = browserMissing();

  it.skipIf(missing !== undefined)(
    `200 items and 20 lanes fit a phone's width in headless Chromium${missing ? ` (skipped: ${missing})` : ''}`,
    async () => {
      const fleet = fleetOf(Array.from({ length: 200 }, (_, i) => item(i)));
      const served = await serve({
        read: () => Promise.resolve(fleet),
        actions: () =>
          Promise.resolve(new Map([[`${fleet.runs[0]!.runId} ${fleet.items[0]!.item.slug}`, 'Write src/a-very-long-file-name.ts']])),
      });
      const browser = await openBrowser(served.url);
      try {
        await browser.phone(390, 844);
        await browser.until('the items', `document.querySelectorAll('#items li').length === 200`);
        expect(await browser.evaluate('document.querySelectorAll("#lanes tbody tr").length')).toBe(20);
        expect(await browser.evaluate('document.querySelectorAll("#timeline g.run").length')).toBe(20);
        expect(await browser.evaluate('document.querySelectorAll("#timeline rect[class^=o-]").length')).toBe(200);
        expect(await browser.evaluate('document.querySelectorAll("#queue tbody tr").length')).toBe(12);
        // Failing items come first, with their reason as text.
        expect(await browser.evaluate('document.querySelector("#items details").dataset.state')).toBe('failing');
        expect(
          await browser.evaluate('document.querySelectorAll("#fleet script, #fleet .title *, #fleet .why *:not(a):not(code)").length'),
        ).toBe(0);
        // No sideways scroll of the page itself (wide tables scroll in their own box).
        const wide = `[...document.querySelectorAll('body *')].filter((e) => !e.parentElement.closest('.scroll') && e.getBoundingClientRect().right > 392).slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).join(', ')`;
        expect(await browser.evaluate(wide)).toBe('');
        expect(await browser.evaluate('window.innerWidth')).toBeLessThanOrEqual(400);
        expect(await browser.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      } finally {
        await browser.close();
        await served.close();
      }
    },
    90_000,
  );

  it('many viewers share one read per interval, and with nobody watching nothing is read', async () => {
    const fleet = fleetOf(Array.from({ length: 10 }, (_, i) => item(i)));
    let reads = 0;
    const served = await serve({
      read: async () => {
        reads++;
        await new Promise((r) => setTimeout(r, 50));
        return fleet;
      },
      everyMs: 400,
    });
    try {
      const cookie = await cookieOf(served.url);
      const closers = await Promise.all(Array.from({ length: 8 }, () => openStream(served.port, cookie)));
      await Promise.all(Array.from({ length: 8 }, () => fetch(`http://127.0.0.1:${served.port}/`, { headers: { cookie } })));
      const started = Date.now();
      await new Promise((r) => setTimeout(r, 2000));
      const elapsed = Date.now() - started;
      // One read per interval at most (plus the first), however many viewers: 8 streams, 8 pages.
      expect(reads).toBeGreaterThanOrEqual(2);
      expect(reads).toBeLessThanOrEqual(Math.ceil(elapsed / 400) + 2);
      for (const close of closers) close();
      await new Promise((r) => setTimeout(r, 300));
      const idle = reads;
      await new Promise((r) => setTimeout(r, 1200));
      expect(reads).toBe(idle);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('a transcript that cannot be read answers 500 and the server goes on; unreadable logs cost only the latest actions', async () => {
    const fleet = fleetOf(Array.from({ length: 3 }, (_, i) => item(i)));
    const logs = await tempDir('serve-logs');
    const served = await serve({
      read: () => Promise.resolve(fleet),
      // Real reads that fail: a folder read as a file, a log that is not there.
      actions: () => readFile(join(logs, 'gone.log'), 'utf8').then(() => new Map()),
      transcript: (runId) => readFile(logs, 'utf8').then((t) => `${runId} ${t}`),
    });
    try {
      const cookie = await cookieOf(served.url);
      const run = await fetch(`http://127.0.0.1:${served.port}/run/${fleet.runs[0]!.runId}`, { headers: { cookie } });
      expect(run.status).toBe(500);
      expect(await run.text()).toBe('abcd serve: internal error\n');
      const page = await fetch(`http://127.0.0.1:${served.port}/`, { headers: { cookie } });
      expect(page.status).toBe(200);
      const text = await page.text();
      expect(text).toContain(fleet.items[0]!.item.slug);
      expect(text).not.toContain('The last read failed');
    } finally {
      await served.close();
    }
  });

  it('a bug in reading the latest actions is not swallowed: the page says the read failed', async () => {
    const fleet = fleetOf(Array.from({ length: 3 }, (_, i) => item(i)));
    const served = await serve({
      read: () => Promise.resolve(fleet),
      actions: () => Promise.reject(new TypeError('actions is broken')),
    });
    try {
      const cookie = await cookieOf(served.url);
      const text = await (await fetch(`http://127.0.0.1:${served.port}/`, { headers: { cookie } })).text();
      expect(text).toContain('The last read failed');
      expect(text).toContain('actions is broken');
    } finally {
      await served.close();
    }
  });

  it('an item whose lane work waits for review is shown as needs-review, not ready', () => {
    const waiting = { ...item(22), readiness: 'needs-review' as const };
    const [row] = itemRows([waiting], [], NOW);
    expect(row!.state).toBe('needs-review');
    expect(itemRows([item(22)], [], NOW)[0]!.state).toBe('ready');
  });

  it('escapes every interpolated value, attributes included', () => {
    const hostile = `"><script>alert(1)</script>' & <img src=x>`;
    expect(html`<a title="${hostile}">${hostile}</a>`.text).toBe(
      '<a title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39; &amp; &lt;img src=x&gt;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39; &amp; &lt;img src=x&gt;</a>',
    );
    expect(html`<p>${[hostile, html`<b>ok</b>`]}</p>`.text).toContain('<b>ok</b>');
    const cleaned = html`<p>${'\u202eevil\u0007'}</p>`.text;
    expect(cleaned.includes('\u202e') || cleaned.includes('\u0007')).toBe(false);
  });
});

describe("the agent's latest action", () => {
  it('reads a Claude Code or Codex stream as its own reader does, else the last printed line; whichever came last', () => {
    const claude = [
      '{"type":"system","subtype":"init","session_id":"s-1","model":"m","tools":["Bash","Read","Write","Edit","Glob","Grep"]}',
      '{"type":"assistant","message":{"content":[{"type":"text","text":"I will write the file."}]}}',
      '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"file_path":"src/login.ts","content":"x"}}]}}',
    ];
    expect(latestActivity(claude)).toMatch(/^▸ Write.*src\/login\.ts/);
    const codex = [
      '{"type":"thread.started","thread_id":"t"}',
      '{"type":"item.started","item":{"type":"command_execution","command":"npm test"}}',
    ];
    expect(latestActivity(codex)).toBe('▸ npm test');
    expect(latestActivity([...claude, '[abcd] check: npm test', ''])).toBe('[abcd] check: npm test');
    expect(latestActivity(['built it', '\u001b[31mred\u001b[0m text'])).toBe('red text');
    expect(latestActivity(['', '  '])).toBeUndefined();
  });
});
