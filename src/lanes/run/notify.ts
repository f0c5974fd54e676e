// lanes.notify: one JSON message per event (a landing, a failure, work waiting for review, the
// budget used up, a lane losing its claim or an earlier run found dead) posted to a webhook whose URL the person keeps in
// an environment variable of the lane's own process. The URL is a secret: it is read here and
// nowhere else, never written to a record, a log or an answer, and no error text that could
// carry it is kept. Posting never blocks a lane: each message is sent in the background with a
// few retries, and the run's end waits for what is still in flight for a bounded time only.
import type { Clock } from '../../core/deps.js';
import type { CycleRecord } from '../../records/lane-result.js';

export const NOTIFY_EVENTS = ['landed', 'failed', 'needs-review', 'budget-exhausted', 'lost'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** The message, as Slack-compatible incoming webhooks take it: `text`, and abcd's own fields beside it. */
export interface NotifyMessage {
  text: string;
  abcd: {
    v: 1;
    event: NotifyEvent;
    runId: string;
    holder: string;
    at: string;
    item?: string;
    outcome?: string;
    code?: string;
    reason?: string;
    landed?: string;
    kept?: { branch: string; head: string };
    /** A lost run's message: the run that found it. */
    foundBy?: string;
  };
}

/** Sends one message; resolves true when the webhook answered 2xx. Never throws. */
export type PostMessage = (url: string, body: string, signal: AbortSignal) => Promise<boolean>;

export interface Notifier {
  cycle(c: CycleRecord): void;
  /** An earlier run of this clone whose process died without finishing (found when this run started). */
  lostRun(runId: string): void;
  /** The run ended with this code (ok, budget-exhausted, interrupted ...). */
  runEnd(end: string): void;
  /** Waits for the posts in flight, at most `NOTIFY_SETTLE_MS`; those still going are given up and count as failed. */
  settle(): Promise<{ sent: number; failed: number }>;
}

// Attempts per message, and the waits between them (doubling): a webhook down for a few seconds still hears.
const ATTEMPTS = 3;
const FIRST_RETRY_MS = 500;
// One attempt's own limit: a webhook that accepts the connection and never answers costs this.
const ATTEMPT_TIMEOUT_MS = 5_000;
/** The longest a run's end waits for posts still in flight. */
export const NOTIFY_SETTLE_MS = 10_000;

/** The events a config names (all when it names none). */
export function notifyEvents(events: readonly NotifyEvent[] | undefined): ReadonlySet<NotifyEvent> {
  return new Set(events && events.length ? events : NOTIFY_EVENTS);
}

/** Which event a finished cycle is, if any: a fenced cycle lost its claim to another session. */
export function cycleEvent(c: CycleRecord): NotifyEvent | undefined {
  if (c.outcome === 'landed') return 'landed';
  if (c.code === 'needs-review') return 'needs-review';
  if (c.code === 'budget-exhausted') return 'budget-exhausted';
  if (c.code === 'fenced') return 'lost';
  if (c.outcome === 'failed' || c.outcome === 'timeout') return 'failed';
  return undefined;
}

/** The message for a cycle's event: `text` says it in one line a person reads on a phone. */
export function cycleMessage(e: NotifyEvent, c: CycleRecord, run: { runId: string; holder: string; at: number }): NotifyMessage {
  const what: Record<NotifyEvent, string> = {
    landed: `landed ${c.item}${c.landed ? ` (${c.landed.slice(0, 12)})` : ''}`,
    failed: `${c.item} failed${c.code ? ` (${c.code})` : ''}${c.reason ? `: ${c.reason}` : ''}`,
    'needs-review': `${c.item} waits for review: abcd review ${c.item}`,
    'budget-exhausted': `the model budget is used up; ${c.item} did not run`,
    lost: `the lane lost its claim on ${c.item}${c.reason ? `: ${c.reason}` : ''}`,
  };
  const kept = c.kept ? ` Work kept on ${c.kept.branch}.` : '';
  return {
    text: `abcd: ${what[e]}.${kept} (run ${run.runId})`,
    abcd: {
      v: 1,
      event: e,
      runId: run.runId,
      holder: run.holder,
      at: new Date(run.at).toISOString(),
      item: c.item,
      outcome: c.outcome,
      ...(c.code ? { code: c.code } : {}),
      ...(c.reason ? { reason: c.reason } : {}),
      ...(c.landed ? { landed: c.landed } : {}),
      ...(c.kept ? { kept: c.kept } : {}),
    },
  };
}

/** Posts with fetch; any failure (refused connection, timeout, non-2xx) is false, its text dropped (it may name the URL). */
export const postWithFetch: PostMessage = async (url, body, signal) => {
  try {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal, redirect: 'error' });
    await r.body?.cancel().catch(() => undefined); // cleanup: the body may already be read or gone
    return r.ok;
  } catch {
    // best effort: fetch fails with a TypeError for a refused connection, a redirect or a URL
    // that is none, and with a DOMException on a stop, so no narrower check tells them from a
    // bug; a notice that cannot be sent is counted as failed and never fails the run.
    return false;
  }
};

/**
 * A notifier for one run; a no-op one when there is no URL. `url` is the variable's value as the
 * lane's own environment holds it.
 */
export function makeNotifier(o: {
  url: string | undefined;
  events: ReadonlySet<NotifyEvent>;
  run: { runId: string; holder: string };
  clock: Clock;
  post?: PostMessage;
  /** How long settle waits (tests shorten it). */
  settleMs?: number;
}): Notifier {
  const url = o.url?.trim();
  const post = o.post ?? postWithFetch;
  const inFlight = new Set<Promise<void>>();
  const counts = { sent: 0, failed: 0 };
  const stop = new AbortController();
  const send = (m: NotifyMessage) => {
    if (!url || !o.events.has(m.abcd.event)) return;
    const body = JSON.stringify(m);
    const p = (async () => {
      for (let i = 0; i < ATTEMPTS && !stop.signal.aborted; i++) {
        if (i > 0) await o.clock.sleep(FIRST_RETRY_MS * 2 ** (i - 1), stop.signal);
        if (await post(url, body, AbortSignal.any([stop.signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]))) {
          counts.sent++;
          return;
        }
      }
      counts.failed++;
    })();
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  return {
    cycle(c) {
      const e = cycleEvent(c);
      if (e) send(cycleMessage(e, c, { ...o.run, at: o.clock.now() }));
    },
    lostRun(runId) {
      send({
        text: `abcd: run ${runId} was lost: its process ended without finishing; its claims lapse at their expiry (abcd status).`,
        abcd: { v: 1, event: 'lost', runId, holder: o.run.holder, at: new Date(o.clock.now()).toISOString(), foundBy: o.run.runId },
      });
    },
    runEnd(end) {
      if (end !== 'budget-exhausted') return;
      send({
        text: `abcd: the model budget is used up; run ${o.run.runId} starts no new cycle (abcd budget).`,
        abcd: { v: 1, event: 'budget-exhausted', runId: o.run.runId, holder: o.run.holder, at: new Date(o.clock.now()).toISOString() },
      });
    },
    async settle() {
      if (inFlight.size) {
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, o.settleMs ?? NOTIFY_SETTLE_MS)));
        await Promise.race([Promise.all(inFlight), bound]);
        clearTimeout(timer);
        // What is still going is given up on, and counted so.
        stop.abort();
        await Promise.all(inFlight);
      }
      return { ...counts };
    },
  };
}
