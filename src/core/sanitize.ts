// Text that came from a record, the remote, an item file or another session is hostile until
// it passes through here: it may carry terminal escapes (C0/C1 controls), bidi overrides that
// reorder what a person reads, or zero-width characters that hide text. Everything that
// reaches a terminal, a message or an agent's mailbox goes through one of these.

// C0 controls but tab and newline, DEL, and the C1 block (0x80-0x9f: 0x9b is a one-byte CSI).
// eslint-disable-next-line no-control-regex -- control characters are what sanitizing removes
const CONTROL_KEEP_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// The same, newline and tab included (one-line texts: notes, names, refusal messages).
// eslint-disable-next-line no-control-regex -- control characters are what sanitizing removes
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f]/g;
// Bidi embeddings, overrides and isolates, and the marks that steer them (U+061C, U+200E/F).
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// Every other format character (zero-width space/joiners, word joiner, soft hyphen, BOM, the
// tag block U+E0000-E007F that smuggles ASCII past a reader), line/paragraph separators, and
// characters that render as nothing: the combining grapheme joiner, Hangul and Khmer fillers,
// Mongolian selectors and the variation selectors (another way to smuggle bytes in plain sight).
// eslint-disable-next-line no-misleading-character-class -- invisible marks listed one by one on purpose, each alone
const INVISIBLE = /[\p{Cf}\u2028\u2029\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\uffa0\ufe00-\ufe0f\u{e0100}-\u{e01ef}]/gu;
// Half of a surrogate pair on its own: not a character; printed it becomes U+FFFD or garbage.
const LONE_SURROGATE = /\p{Cs}/gu;

/** Replacement shown where a character was removed, so a reader sees that something was there. */
export const REPLACEMENT = '?';

/** One line of hostile text made safe to print: no controls (newlines included), bidi or invisibles. */
export function sanitizeLine(text: string, maxChars = Infinity): string {
  const clean = cleanFormatting(text.replace(CONTROL_ALL, REPLACEMENT));
  return clean.length > maxChars ? clean.slice(0, Math.max(0, maxChars - 1)) + '…' : clean;
}

/** Multi-line hostile text made safe: newlines and tabs kept, everything else as sanitizeLine. */
export function sanitizeText(text: string): string {
  return cleanFormatting(text.replace(/\r\n?/g, '\n').replace(CONTROL_KEEP_LINES, REPLACEMENT));
}

/** Whether a text would change under sanitizeLine (a schema can refuse it instead). */
export function hasUnsafeCharacters(text: string): boolean {
  return [CONTROL_ALL, BIDI, INVISIBLE, LONE_SURROGATE].some((re) => new RegExp(re.source, re.flags.replace('g', '')).test(text));
}

// Inside a JSON string: JSON.stringify escapes C0 and lone surrogates itself, not these.
// eslint-disable-next-line no-misleading-character-class -- built from INVISIBLE, whose marks are listed one by one on purpose
const JSON_UNSAFE = new RegExp(`[\\u007f-\\u009f]|${BIDI.source}|${INVISIBLE.source}`, 'gu');

/**
 * JSON.stringify whose output holds no character a terminal acts on or hides: every one is
 * written as a \u escape, so a JSON parser reads back exactly the original strings (records
 * keep their data) while the bytes on stdout stay inert.
 */
export function stringifySafeJson(value: unknown): string {
  return JSON.stringify(value).replace(JSON_UNSAFE, (ch) =>
    ch
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
  );
}

function cleanFormatting(text: string): string {
  return text.replace(BIDI, REPLACEMENT).replace(INVISIBLE, '').replace(LONE_SURROGATE, REPLACEMENT);
}
