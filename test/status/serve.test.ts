// `abcd serve`: the fleet's page, rendered by a real headless Chromium from a real remote
// (items on main, a claim, a lane that lands), updated live over server-sent events when the
// landing happens, every record-derived text shown as text; and over plain HTTP: no token, no
// page (401), read-only (405), the token traded for a cookie, a clean exit on SIGTERM.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp } from '../harness/git-env.js';
import { COMMITTING_AGENT, laneSession, remoteWithItems } from '../harness/lanes.js';
import { ABCD_BIN, type Session } from '../harness/session.js';
import { browserMissing, openBrowser } from '../harness/browser.js';
import { ANSWERS } from '../../src/cli/answers.js';

afterAll(cleanupTemp);

// Works for a few seconds, long enough for the page to show it among the lanes now.
const TALKING_AGENT = `echo "agent at work on $ABCD_ITEM"; sleep 5; ${COMMITTING_AGENT}`;
const HOSTILE_TITLE = `<img src=x onerror="document.title='pwned'"><b id="pwn">bold</b> & co`;

interface Serving {
  url: string;
  base: string;
  proc: ResultPromise;
  /** The first line as printed. */
  first: string;
}

/** Starts `abcd serve` in the session's clone and reads the address from its first line. */
async function startServe(s: Session, more: string[] = []): Promise<Serving> {
  const proc = execa(process.execPath, [ABCD_BIN, 'serve', '--every', '500ms', ...more], {
    cwd: s.dir,
    env: s.env,
    extendEnv: false,
    reject: false,
  });
  let first = '';
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`abcd serve printed no address: ${out}`)), 30_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(timer);
        first = out.split('\n')[0]!;
        resolve(first.startsWith('{') ? (JSON.parse(first) as { url: string }).url : first);
      }
    });
    void proc.then((r) => reject(new Error(`abcd serve exited ${r.exitCode}: ${String(r.stderr)}`)));
  });
  return { url, base: new URL(url).origin, proc, first };
}

async function stop(serving: Serving, signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM'): Promise<number | undefined> {
  serving.proc.kill(signal);
  return (await serving.proc).exitCode;
}

const missing = browserMissing();

describe('abcd serve', () => {
  it.skipIf(missing !== undefined)(
    `renders the fleet of a real remote in headless Chromium and updates it when a lane lands${missing ? ` (skipped: ${missing})` : ''}`,
    async () => {
      const remote = await remoteWithItems([{ slug: 'alpha' }, { slug: 'beta' }, { slug: 'gamma', dependsOn: ['alpha'] }]);
      const s = await laneSession(remote, 'watcher');
      await writeFile(
        join(s.dir, '.abcd/items/evil.md'),
        `---\ntitle: '${HOSTILE_TITLE.replace(/'/g, "''")}'\nstatus: ready\n---\nHostile.\n`,
      );
      await s.git(['add', '.abcd/items/evil.md']);
      await s.git(['commit', '-qm', 'a hostile item']);
      await s.git(['push', '-q', 'origin', 'HEAD:main']);
      const other = await laneSession(remote, 'holder');
      expect((await other.abcd(['reserve', 'beta', '--json'])).code).toBe(0);

      const serving = await startServe(s);
      expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{20,}$/);
      const browser = await openBrowser(serving.url);
      try {
        const state = (slug: string) => `document.querySelector('#items li[data-item="${slug}"]')?.closest('details')?.dataset.state`;
        await browser.until('the items', `${state('alpha')} === 'ready'`);
        expect(await browser.evaluate(state('beta'))).toBe('claimed');
        expect(await browser.evaluate(state('gamma'))).toBe('blocked');
        expect(await browser.evaluate(`document.querySelector('#items li[data-item="beta"] .who').textContent`)).toContain('holder');
        // The hostile title is text: no element of it exists, its script never ran.
        expect(await browser.evaluate(`document.querySelector('li[data-item="evil"] .title').textContent`)).toBe(HOSTILE_TITLE);
        expect(await browser.evaluate(`document.querySelectorAll('#fleet img, #pwn').length`)).toBe(0);
        expect(await browser.evaluate('document.title')).toBe('abcd fleet');
        // The token left the address for a cookie the script cannot read.
        expect(await browser.evaluate('location.search')).toBe('');
        expect(await browser.evaluate('document.cookie')).toBe('');

        const building = s.abcd(['build', 'alpha', '--json', '--agent', TALKING_AGENT], { timeoutMs: 120_000 });
        // While it works: its row among the lanes now, with the agent's latest line from this clone's log.
        const row = `document.querySelector('#lanes tr[data-item="alpha"]')`;
        await browser.until('alpha among the lanes now', `${row}?.textContent.includes('agent at work on local:item:alpha')`);
        expect(await browser.evaluate(`${row}.children[1].textContent`)).toBe('agent');
        const built = await building;
        expect(built.code, built.stdout + built.stderr).toBe(0);
        const runId = built.json.runId as string;
        // Live: the stream brings the landing, with no reload.
        await browser.until('alpha done after its landing', `${state('alpha')} === 'done'`);
        expect(await browser.evaluate(`Number(document.getElementById('live').dataset.updates) > 1`)).toBe(true);
        expect(await browser.evaluate(state('gamma'))).toBe('ready');
        const bar = `document.querySelector('#timeline g[data-run="${runId}"] a[data-item="alpha"]')`;
        await browser.until('the landed bar', `${bar}?.dataset.outcome === 'landed'`);
        expect(await browser.evaluate(`document.querySelectorAll('#timeline g[data-run="${runId}"] path.landing').length`)).toBe(1);
        expect(await browser.evaluate(`document.querySelector('#spend g[data-key="alpha"]') !== null`)).toBe(true);
        expect(await browser.evaluate(`document.querySelector('#spend g[data-key="command"]') !== null`)).toBe(true);
        // Its transcript, linked from the bar: this clone's log of the cycle.
        const transcript = await browser.evaluate<string>(`fetch(${bar}.getAttribute('href')).then((r) => r.text())`);
        expect(transcript).toContain('==&gt; cycle 1: alpha &lt;==');
        expect(transcript).toContain('agent at work on local:item:alpha');
      } finally {
        await browser.close();
        expect(await stop(serving)).toBe(0);
      }
    },
    180_000,
  );

  it('refuses every request without the token (401), takes GET only (405), and trades the token for a strict cookie', async () => {
    const remote = await remoteWithItems([{ slug: 'alpha' }]);
    const s = await laneSession(remote, 'plain');
    const serving = await startServe(s, ['--json']);
    try {
      // --json: the first line is the answer, before the page is served.
      const answer = JSON.parse(serving.first) as Record<string, unknown>;
      expect(answer).toEqual({ ok: true, url: serving.url, port: Number(new URL(serving.url).port) });
      expect(ANSWERS.serve!.safeParse(answer).success).toBe(true);
      const token = new URL(serving.url).searchParams.get('token')!;
      for (const path of ['/', '/events', '/run/20261201T000000Z-abcdef', `/?token=${token}x`, '/?token=']) {
        const r = await fetch(serving.base + path, { redirect: 'manual' });
        expect(r.status, path).toBe(401);
        expect(await r.text()).not.toContain('alpha');
      }
      const wrongCookie = await fetch(serving.base + '/', { headers: { cookie: `abcd_serve_${new URL(serving.url).port}=nope` } });
      expect(wrongCookie.status).toBe(401);

      const first = await fetch(serving.url, { redirect: 'manual' });
      expect(first.status).toBe(303);
      expect(first.headers.get('location')).toBe('/');
      const cookie = first.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^abcd_serve_\d+=[A-Za-z0-9_-]+; HttpOnly; SameSite=Strict; Path=\/$/);
      const jar = cookie.split(';')[0]!;

      const page = await fetch(serving.base + '/', { headers: { cookie: jar } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      const text = await page.text();
      expect(text).toContain('data-item="alpha"');
      // Nothing from outside the page: no address but its own.
      expect(text).not.toMatch(/(src|href)="(https?:)?\/\//);

      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const r = await fetch(serving.base + '/', { method, headers: { cookie: jar } });
        expect(r.status, method).toBe(405);
        expect(r.headers.get('allow')).toBe('GET');
      }
      for (const path of ['/run/not-a-run', '/run/%E0%A4%A', '/run/..%2F..%2Fconfig', '/nothing'])
        expect((await fetch(serving.base + path, { headers: { cookie: jar } })).status, path).toBe(404);
    } finally {
      expect(await stop(serving, 'SIGINT')).toBe(0);
    }
  }, 60_000);
});
