// The live line a waiting verb shows on a terminal, drawn in place by log-update (loaded only
// when a verb first waits, so `abcd --help` stays light).
import type { Deps } from '../core/deps.js';
import { terminalSize } from './terminal-size.js';

type Render = ((text: string) => void) & { clear(): void };

/** A progress callback that redraws one line (or a few, one per line of the text) on `stream`; null removes it. */
export function makeWaitLine(stream: NodeJS.WriteStream): (line: string | null) => void {
  let render: Render | undefined;
  let loading: Promise<void> | undefined;
  let latest: string | null = null;
  const show = () => {
    if (!render) return;
    if (latest === null) render.clear();
    else {
      const { columns } = terminalSize(stream);
      // Each line cut to the width: a wrapped line would leave a stale row behind on the next redraw.
      render(
        latest
          .split('\n')
          .map((l) => (l.length > columns - 1 ? l.slice(0, columns - 2) + '…' : l))
          .join('\n'),
      );
    }
  };
  return (line) => {
    latest = line;
    if (render) return show();
    if (line === null) return;
    loading ??= import('log-update').then((m) => {
      // log-update clips to the stream's rows: an unsized pty (0 rows) would show nothing.
      const sized = {
        write: (t: string) => stream.write(t),
        get columns() {
          return terminalSize(stream).columns;
        },
        get rows() {
          return terminalSize(stream).rows;
        },
      } as unknown as NodeJS.WriteStream;
      render = m.createLogUpdate(sized, { showCursor: true });
      show();
    });
  };
}

/** gate's own wait, as a line for deps.progress. */
export function gateWaitLine(deps: Deps, label: string) {
  return (w: { ticket: number; ahead: number; leftMs: number }) =>
    deps.progress?.(
      `waiting for a load-gate slot for ${label} (ticket ${w.ticket}, ${w.ahead} ahead), ${Math.ceil(w.leftMs / 1000)}s left`,
    );
}
