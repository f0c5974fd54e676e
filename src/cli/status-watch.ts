// The `abcd status --watch` loop: read, show, sleep, until the person stops it. A failed read
// keeps the last good view on screen with a line saying what failed and when it tries again;
// retries back off, bounded, and the loop ends on a failure only when --watch-exit allows it.
import type { Deps } from '../core/deps.js';
import { isRefusal, type Refusal } from '../core/refusals.js';
import { sanitizeText, stringifySafeJson } from '../core/sanitize.js';
import { formatDuration, sanitizeOutput } from './render.js';
import { readTime } from './status-text.js';
import { watchScreen } from './watch-screen.js';

export interface StatusRead {
  json: Record<string, unknown>;
  readAt: number;
  signature: string;
  /** The header and body, one entry per line (empty under --json). */
  lines: string[];
  /** What the person should fix, one line each: shown once, in the footer, never in each frame. */
  warnings: string[];
}

export interface WatchOptions {
  everyMs: number;
  json: boolean;
  /** End with the refusal after this many failed reads in a row; undefined: never. */
  exitAfter?: number;
  /** Cuts the footer to the terminal's width. */
  cut: (line: string) => string;
}

// Retries after failed reads wait twice as long each time, up to this (or the interval, if longer):
// a remote back from an outage is seen within it.
const MAX_RETRY_MS = 15_000;

export async function watchStatus(deps: Deps, read: () => Promise<StatusRead>, o: WatchOptions): Promise<Record<string, unknown>> {
  const screen = watchScreen(deps);
  let good: StatusRead | undefined;
  let failures = 0;
  let warned = '';
  try {
    for (;;) {
      let wait = o.everyMs;
      try {
        const r = await read();
        good = r;
        failures = 0;
        if (o.json) deps.out.stdout(stringifySafeJson({ ok: true, ...r.json }) + '\n');
        else {
          // On a pipe each changed frame is printed again: the warnings only when they change.
          const said = r.warnings.join('\n');
          if (!deps.out.isTTY && said !== warned && said) deps.out.stdout(`${said}\n\n`);
          warned = said;
          const footer = `last read ${readTime(r.readAt)}, every ${formatDuration(o.everyMs)}; Ctrl-C stops`;
          screen.show(view(r.lines, footer, o, deps.out.isTTY ? r.warnings : []), r.signature);
        }
      } catch (e) {
        if (!isRefusal(e) || deps.signal?.aborted) throw e;
        failures++;
        if (o.exitAfter !== undefined && failures >= o.exitAfter) throw e;
        wait = Math.min(Math.max(MAX_RETRY_MS, o.everyMs), o.everyMs * 2 ** failures);
        showFailure(deps, screen, { e, failures, wait, good, o });
      }
      await deps.clock.sleep(wait, deps.signal);
      if (deps.signal?.aborted) return good?.json ?? {};
    }
  } finally {
    screen.close();
  }
}

function view(lines: readonly string[], footer: string, o: WatchOptions, warnings: readonly string[] = []): string[] {
  return [...lines, ...warnings.map((w) => o.cut(w)), o.cut(footer)];
}

function showFailure(
  deps: Deps,
  screen: ReturnType<typeof watchScreen>,
  f: { e: Refusal; failures: number; wait: number; good: StatusRead | undefined; o: WatchOptions },
): void {
  const now = deps.clock.now();
  const what = sanitizeText(f.e.message).split('\n')[0]!;
  const since = f.good ? `showing the read of ${readTime(f.good.readAt)}` : 'nothing read yet';
  // What matters first, as the line is cut to the terminal's width: when, and when again.
  const line = `read failed at ${readTime(now)}, retrying in ${formatDuration(f.wait)} (${f.failures} in a row; ${since}; Ctrl-C stops): ${what}`;
  if (f.o.json) {
    const refusal = { code: f.e.code, exit: f.e.exit, message: sanitizeText(f.e.message), data: f.e.data };
    deps.out.stdout(stringifySafeJson({ ok: false, refusal, failures: f.failures, retryInMs: f.wait }) + '\n');
    return;
  }
  const signature = `failed ${f.failures} ${f.good?.signature ?? ''}`;
  screen.show(
    view(f.good?.lines ?? [], sanitizeOutput(line, deps.out.isTTY), f.o, deps.out.isTTY ? (f.good?.warnings ?? []) : []),
    signature,
  );
}
