// A real headless Chromium (Debian's `chromium`) driven over the DevTools protocol: it loads a
// page, and a test evaluates expressions in it while the page lives (server-sent events
// arriving), which `--dump-dom` cannot: it dumps once, and an open event stream keeps its
// virtual time from ever running out.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tempDir } from './git-env.js';

export interface Browser {
  /** The expression's value in the page (JSON-able), after awaiting it if it is a promise. */
  evaluate<T = unknown>(expression: string): Promise<T>;
  /** The page laid out as a phone shows it (a viewport narrower than a headless window can be). */
  phone(width: number, height: number): Promise<void>;
  /** Polls `expression` until it is truthy, or fails naming `what`. */
  until(what: string, expression: string, ms?: number): Promise<void>;
  close(): Promise<void>;
}

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserMissing(): string | undefined {
  if (!CHROMIUM) return 'no chromium on this machine (scripts/ensure-test-tools.sh installs it)';
  if (typeof WebSocket === 'undefined') return 'this Node has no WebSocket client (Node 22 or later has)';
  return undefined;
}

export async function openBrowser(url: string): Promise<Browser> {
  const profile = await tempDir('chromium');
  const child: ChildProcess = spawn(
    CHROMIUM!,
    ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${profile}`, '--remote-debugging-port=0', url],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`chromium did not start: ${err.slice(-500)}`)), 30_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', () => reject(new Error(`chromium exited: ${err.slice(-500)}`)));
  });
  const page = await pageTarget(port);
  const ws = new WebSocket(page);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let next = 0;
  type Answer = { id?: number; result?: { result?: { value?: unknown } }; error?: unknown };
  const waiting = new Map<number, (m: Answer) => void>();
  ws.onmessage = (e: MessageEvent) => {
    const m = JSON.parse(String(e.data)) as Answer;
    if (m.id !== undefined) waiting.get(m.id)?.(m);
  };
  const send = (method: string, params: Record<string, unknown>) =>
    new Promise<Answer>((resolve, reject) => {
      const id = ++next;
      waiting.set(id, (m) => {
        waiting.delete(id);
        if (m.error) reject(new Error(JSON.stringify(m.error)));
        else resolve(m);
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  const evaluate = async <T>(expression: string) =>
    (await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })).result?.result?.value as T;
  return {
    evaluate,
    async phone(width, height) {
      await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 3, mobile: true });
    },
    async until(what, expression, ms = 60_000) {
      const end = Date.now() + ms;
      let last: unknown;
      while (Date.now() < end) {
        last = await evaluate(expression).catch((e: Error) => e.message);
        if (last) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`the page never showed ${what} (last: ${JSON.stringify(last)})`);
    },
    async close() {
      ws.close();
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

/** The first page's DevTools address (the page opens a moment after the browser listens). */
async function pageTarget(port: number): Promise<string> {
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    const list = (await fetch(`http://127.0.0.1:${port}/json/list`)
      .then((r) => r.json())
      .catch(() => [])) as Array<{ type: string; webSocketDebuggerUrl?: string }>;
    const page = list.find((t) => t.type === 'page' && t.webSocketDebuggerUrl);
    if (page) return page.webSocketDebuggerUrl!;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('chromium opened no page');
}
