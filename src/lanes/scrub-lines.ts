// Output that streams into a log comes in chunks cut anywhere: a token split between two chunks
// would pass a scrub of each. So it is scrubbed by whole lines, the unfinished last one held
// back, and a PEM block that spans lines is blanked from its header to its end line.
import { SCRUBBED, scrubSecrets } from '../core/scrub.js';

// A line this long without a newline is scrubbed and let through as it is (a progress bar).
const MAX_HELD_CHARS = 64 * 1024;
const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]{1,60}-----/;
const PEM_END = /-----END [A-Z0-9 ]{1,60}-----/;

export interface LineScrubber {
  /** The scrubbed text of every line the chunk completed. */
  push(chunk: string): string;
  /** What is left, scrubbed (the stream ended). */
  end(): string;
}

export function lineScrubber(): LineScrubber {
  let held = '';
  let inPem = false;
  // null: a line inside a PEM block, left out whole (its header line already says what was there).
  const line = (l: string): string | null => {
    if (inPem) {
      if (!PEM_END.test(l)) return null;
      inPem = false;
      const rest = l.slice(l.search(PEM_END)).replace(PEM_END, '');
      return rest.trim() === '' ? null : scrubSecrets(rest);
    }
    const begin = l.search(PEM_BEGIN);
    if (begin >= 0 && !PEM_END.test(l.slice(begin))) {
      inPem = true;
      return `${scrubSecrets(l.slice(0, begin))}-----PEM block ${SCRUBBED}-----`;
    }
    return scrubSecrets(l);
  };
  return {
    push(chunk) {
      held += chunk;
      const cut = held.lastIndexOf('\n');
      if (cut < 0) {
        if (held.length < MAX_HELD_CHARS) return '';
        const out = line(held) ?? '';
        held = '';
        return out;
      }
      const done = held.slice(0, cut).split('\n');
      held = held.slice(cut + 1);
      return done
        .map(line)
        .filter((l) => l !== null)
        .map((l) => `${l}\n`)
        .join('');
    },
    end() {
      const out = held === '' ? '' : (line(held) ?? '');
      held = '';
      return out;
    },
  };
}
