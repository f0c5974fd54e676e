// `abcd status --watch` on a terminal: the screen is redrawn only when what it shows changed;
// otherwise only its last line, when it last read, is rewritten. Cursor moves come from
// node:readline rather than hand-written escapes. On a pipe, a read is printed only on change.
import { clearLine, clearScreenDown, cursorTo, moveCursor } from 'node:readline';
import type { Deps } from '../core/deps.js';
import { formatDuration } from './render.js';
import { readTime } from './status-text.js';

// Relative times ("expires in 4m") go stale on a screen nothing redraws: refresh them this often.
const REFRESH_TIMES_MS = 60_000;

export function watchScreen(deps: Deps, everyMs: number): { show(view: string, signature: string, readAt: number): void } {
  const stream = { write: (t: string) => (deps.out.stdout(t), true) } as unknown as NodeJS.WritableStream;
  let last: string | undefined;
  let drawnAt = 0;
  return {
    show(view, signature, readAt) {
      const same = signature === last && readAt - drawnAt < REFRESH_TIMES_MS;
      const footer = `last read ${readTime(readAt)}, every ${formatDuration(everyMs)}; Ctrl-C stops`;
      if (!deps.out.isTTY) {
        if (signature !== last) deps.out.stdout(`${view}\n${footer}\n\n`);
      } else if (same) {
        moveCursor(stream, 0, -1);
        cursorTo(stream, 0);
        clearLine(stream, 0);
        deps.out.stdout(`${footer}\n`);
      } else {
        cursorTo(stream, 0, 0);
        clearScreenDown(stream);
        deps.out.stdout(`${view}\n${footer}\n`);
        drawnAt = readAt;
      }
      last = signature;
    },
  };
}
