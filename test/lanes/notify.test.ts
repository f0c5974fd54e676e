// lanes.notify's rules without a lane: which cycle is which event, the events a config picks,
// retries with backoff until one answer is 2xx, and a webhook that never answers given up at
// the bound and counted as failed. The end-to-end delivery is in test/lanes-notify.test.ts.
import { describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cycleEvent, makeNotifier, notifyEvents, postWithFetch, type PostMessage } from '../../src/lanes/run/notify.js';
import type { CycleRecord } from '../../src/records/lane-result.js';
import { systemClock } from '../../src/core/deps.js';

const cycle = (c: Partial<CycleRecord>): CycleRecord => ({ item: 'alpha', outcome: 'failed', startedAt: 1, durationMs: 1, ...c });
const run = { runId: '20261201T000000Z-abc', holder: 'me/host/s' };

describe('lanes.notify', () => {
  it('names each cycle by its event: a landing, a failure, review, the budget, a lost claim; nothing for the rest', () => {
    expect(cycleEvent(cycle({ outcome: 'landed' }))).toBe('landed');
    expect(cycleEvent(cycle({ outcome: 'failed', code: 'check-failed' }))).toBe('failed');
    expect(cycleEvent(cycle({ outcome: 'timeout' }))).toBe('failed');
    expect(cycleEvent(cycle({ outcome: 'failed', code: 'needs-review' }))).toBe('needs-review');
    expect(cycleEvent(cycle({ outcome: 'deferred', code: 'budget-exhausted' }))).toBe('budget-exhausted');
    expect(cycleEvent(cycle({ outcome: 'failed', code: 'fenced' }))).toBe('lost');
    expect(cycleEvent(cycle({ outcome: 'no-change' }))).toBeUndefined();
    expect(cycleEvent(cycle({ outcome: 'cancelled' }))).toBeUndefined();
    expect([...notifyEvents(undefined)]).toEqual(['landed', 'failed', 'needs-review', 'budget-exhausted', 'lost']);
    expect([...notifyEvents(['landed'])]).toEqual(['landed']);
  });

  it('retries a failing post with backoff, posts only the chosen events, and counts what it sent', async () => {
    const calls: string[] = [];
    let fails = 2;
    const post: PostMessage = (url, body) => {
      calls.push(`${url} ${(JSON.parse(body) as { abcd: { event: string } }).abcd.event}`);
      return Promise.resolve(fails-- <= 0);
    };
    const n = makeNotifier({ url: 'http://127.0.0.1:1/hook', events: notifyEvents(['landed', 'failed']), run, clock: systemClock, post });
    n.cycle(cycle({ outcome: 'landed', landed: 'a'.repeat(40) }));
    n.cycle(cycle({ outcome: 'failed', code: 'fenced' })); // lost: not chosen
    n.runEnd('budget-exhausted'); // not chosen
    expect(await n.settle()).toEqual({ sent: 1, failed: 0 });
    expect(calls).toEqual(Array(3).fill('http://127.0.0.1:1/hook landed'));
  });

  it('gives a post that never answers up at the bound and counts it failed; no URL posts nothing', async () => {
    const never: PostMessage = (_u, _b, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(false)));
    const n = makeNotifier({
      url: 'http://127.0.0.1:1/hook',
      events: notifyEvents(undefined),
      run,
      clock: systemClock,
      post: never,
      settleMs: 300,
    });
    n.cycle(cycle({ outcome: 'landed' }));
    const t = Date.now();
    expect(await n.settle()).toEqual({ sent: 0, failed: 1 });
    expect(Date.now() - t).toBeLessThan(5_000);
    let posted = 0;
    const none = makeNotifier({
      url: undefined,
      events: notifyEvents(undefined),
      run,
      clock: systemClock,
      post: () => Promise.resolve(!!++posted),
    });
    none.cycle(cycle({ outcome: 'landed' }));
    expect(await none.settle()).toEqual({ sent: 0, failed: 0 });
    expect(posted).toBe(0);
  });

  it('a real post is true on 2xx and false on every way a webhook fails: an error status, a redirect, a refused connection, a stop, a URL that is none', async () => {
    const server: Server = createServer((req, res) => {
      req.resume();
      if (req.url === '/ok') res.writeHead(204).end();
      else if (req.url === '/moved') res.writeHead(302, { location: '/ok' }).end();
      else res.writeHead(500).end('broken');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const live = new AbortController().signal;
      expect(await postWithFetch(`${base}/ok`, '{}', live)).toBe(true);
      expect(await postWithFetch(`${base}/broken`, '{}', live)).toBe(false);
      expect(await postWithFetch(`${base}/moved`, '{}', live)).toBe(false);
      expect(await postWithFetch('http://127.0.0.1:1/hook', '{}', live)).toBe(false);
      expect(await postWithFetch(`${base}/ok`, '{}', AbortSignal.abort())).toBe(false);
      expect(await postWithFetch('not a url', '{}', live)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
