// Output that streams into a log comes in chunks cut anywhere: a token split between two chunks
// would pass a scrub of each. So it is scrubbed by whole lines, the unfinished last one held
// back, and a PEM block that spans lines is blanked from its header to its end line. A line
// that ends in what may be the start of a token (a long word, a token prefix, the start of a
// secret abcd holds) is held too, and scrubbed joined with the lines that go on with it.
import { endsInSecretStart } from '../../core/known-secrets.js';
import { SCRUBBED, scrubSecrets, TERMINAL_CODES } from '../../core/scrub.js';

// A line this long without a newline is scrubbed and let through as it is (a progress bar).
const MAX_HELD_CHARS = 64 * 1024;
const PEM_BEGIN = /-----BEGIN [A-Z0-9 ]{1,60}-----/;
const PEM_END = /-----END [A-Z0-9 ]{1,60}-----/;
// Lines held to be scrubbed as one text at most: a token wrapped at a terminal's width, a
// base64 text wrapped at 76 characters.
const MAX_JOINED_LINES = 8;
// The end of a line that may go on in the next: a token prefix and its start, or a long word.
const GOES_ON = /(?:^|[^A-Za-z0-9+/=_.-])(?:(?:gh[pousr]_|github_pat_|sk-|eyJ|AKIA|ASIA)[A-Za-z0-9_.-]*|[A-Za-z0-9+/=_.-]{16,})$/;
// The shortest start of a known secret that holds its line back.
const MIN_HELD_PREFIX = 4;

/** Whether `l` may end in the first part of a secret the next line finishes. */
function mayGoOn(l: string): boolean {
  const bare = l.replace(TERMINAL_CODES, '').trimEnd();
  if (bare !== l.replace(TERMINAL_CODES, '')) return false;
  if (GOES_ON.test(bare)) return true;
  return endsInSecretStart(bare, MIN_HELD_PREFIX);
}

export interface LineScrubber {
  /** The scrubbed text of every line the chunk completed. */
  push(chunk: string): string;
  /** What is left, scrubbed (the stream ended). */
  end(): string;
}

export function lineScrubber(): LineScrubber {
  let held = '';
  let inPem = false;
  let joined: string[] = [];
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
  const lines = (ls: string[]) =>
    ls
      .map(line)
      .filter((l) => l !== null)
      .map((l) => `${l}\n`)
      .join('');
  // The held lines as one text: a token split over them is blanked whole.
  const flush = (): string => {
    const ls = joined;
    joined = [];
    if (inPem || ls.some((l) => PEM_BEGIN.test(l) || PEM_END.test(l))) return lines(ls);
    return ls.length ? `${scrubSecrets(ls.join('\n'))}\n` : '';
  };
  const complete = (l: string): string => {
    joined.push(l);
    return mayGoOn(l) && joined.length < MAX_JOINED_LINES ? '' : flush();
  };
  return {
    push(chunk) {
      held += chunk;
      const cut = held.lastIndexOf('\n');
      if (cut < 0) {
        if (held.length < MAX_HELD_CHARS) return '';
        const out = flush() + (line(held) ?? '');
        held = '';
        return out;
      }
      const done = held.slice(0, cut).split('\n');
      held = held.slice(cut + 1);
      return done.map(complete).join('');
    },
    end() {
      const last = held;
      held = '';
      if (last === '') return flush();
      const ls = [...joined, last];
      joined = [];
      if (inPem || ls.some((l) => PEM_BEGIN.test(l) || PEM_END.test(l))) return lines(ls.slice(0, -1)) + (line(last) ?? '');
      return scrubSecrets(ls.join('\n'));
    },
  };
}
