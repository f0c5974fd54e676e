// `abcd status --watch` on a terminal: drawn on the alternate screen, so a redraw never leaves
// a copy of the view in the scrollback and quitting gives the person back the screen they had.
// Only the lines that changed are rewritten (cursor moves from node:readline). On a pipe a
// view is printed only when it changed.
import { clearLine, clearScreenDown, cursorTo } from 'node:readline';
import type { Deps } from '../core/deps.js';

// The terminal's alternate screen (xterm's 1049: saves the cursor, switches, clears) and back.
const ENTER_ALTERNATE = '\u001b[?1049h';
const LEAVE_ALTERNATE = '\u001b[?1049l';

export interface WatchScreen {
  /**
   * Shows `lines` (the view, then its footer). A terminal gets only the lines that differ; a pipe
   * the whole view when `signature` (what the records say, without the clock) changed.
   */
  show(lines: readonly string[], signature: string): void;
  /** Gives the terminal its own screen back (idempotent). */
  close(): void;
}

export function watchScreen(deps: Deps): WatchScreen {
  const stream = { write: (t: string) => (deps.out.stdout(t), true) } as unknown as NodeJS.WritableStream;
  let drawn: string[] | undefined;
  let printed: string | undefined;
  let open = false;
  const leave = () => {
    if (open) deps.out.stdout(LEAVE_ALTERNATE);
    open = false;
  };
  return {
    show(lines, signature) {
      if (!deps.out.isTTY) {
        if (signature !== printed) deps.out.stdout(`${lines.join('\n')}\n\n`);
        printed = signature;
        return;
      }
      if (!open) {
        deps.out.stdout(ENTER_ALTERNATE);
        open = true;
        // A second Ctrl-C ends the process at once: the screen is given back even then.
        process.once('exit', leave);
      }
      const before = drawn ?? [];
      for (const [i, line] of lines.entries()) {
        if (before[i] === line) continue;
        cursorTo(stream, 0, i);
        deps.out.stdout(line);
        clearLine(stream, 1);
      }
      if (lines.length < before.length) {
        cursorTo(stream, 0, lines.length);
        clearScreenDown(stream);
      }
      drawn = [...lines];
    },
    close: leave,
  };
}
