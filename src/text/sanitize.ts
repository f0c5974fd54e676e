// Text that came from a record, the remote, an item file or another session is hostile until
// it passes through here: it may carry terminal escapes (C0/C1 controls), bidi overrides that
// reorder what a person reads, or zero-width characters that hide text. Everything that
// reaches a terminal, a message or an agent's mailbox goes through one of these two.

// C0 controls but tab and newline, DEL, and the C1 block (0x80-0x9f: 0x9b is a one-byte CSI).
const CONTROL_KEEP_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// The same, newline and tab included (one-line texts: notes, names, refusal messages).
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f]/g;
// Bidi embeddings, overrides and isolates, and the marks that steer them (U+061C, U+200E/F).
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// Zero-width and invisible formatting characters, and line/paragraph separators.
const INVISIBLE = /[\u00ad\u180e\u200b-\u200d\u2028\u2029\u2060-\u2064\ufeff]/g;

/** Replacement shown where a character was removed, so a reader sees that something was there. */
export const REPLACEMENT = '?';

/** One line of hostile text made safe to print: no controls (newlines included), bidi or invisibles. */
export function sanitizeLine(text: string, maxChars = Infinity): string {
  const clean = text.replace(CONTROL_ALL, REPLACEMENT).replace(BIDI, REPLACEMENT).replace(INVISIBLE, '');
  return clean.length > maxChars ? clean.slice(0, Math.max(0, maxChars - 1)) + '…' : clean;
}

/** Multi-line hostile text made safe: newlines and tabs kept, everything else as sanitizeLine. */
export function sanitizeText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROL_KEEP_LINES, REPLACEMENT).replace(BIDI, REPLACEMENT).replace(INVISIBLE, '');
}

/** Whether a text would change under sanitizeLine (a schema can refuse it instead). */
export function hasUnsafeCharacters(text: string): boolean {
  return new RegExp(`${CONTROL_ALL.source}|${BIDI.source}|${INVISIBLE.source}`).test(text);
}
