// Item keys (source:kind:id): parsed, checked and printed.
import { UsageError } from '../core/refusals.js';

/** A canonical item key: `<source>:<kind>:<id>`, e.g. local:item:fix-login. */
export interface ItemKey {
  readonly source: string;
  readonly kind: string;
  readonly id: string;
}

// One part of a key: lowercase letters, digits, '.', '_', '-', starting with a letter or digit.
const PART = /^[a-z0-9][a-z0-9._-]*$/;
// Longest item accepted on the command line (short names read well in tables); keeps ref names short.
const MAX_ITEM_CHARS = 100;

/** Parses a slug (`fix-login`) or a full key (`github:issue:123`); anything else is a usage error. */
export function parseItem(text: string): ItemKey {
  const reason = whyNotItem(text);
  if (reason) {
    throw new UsageError(
      `"${printable(text)}" is not an item: ${reason}. Write a slug such as fix-login ` +
        '(lowercase letters, digits, ".", "_", "-", starting with a letter or digit) or a key such as github:issue:123.',
      'item',
      { item: printable(text), reason },
    );
  }
  const parts = text.split(':');
  if (parts.length === 1) return { source: 'local', kind: 'item', id: text };
  const [source, kind, id] = parts as [string, string, string];
  return { source, kind, id };
}

function whyNotItem(text: string): string | undefined {
  if (text.length === 0) return 'it is empty';
  if (text.length > MAX_ITEM_CHARS) return `it is ${text.length} characters long, over ${MAX_ITEM_CHARS}`;
  const parts = text.split(':');
  if (parts.length !== 1 && parts.length !== 3) return 'a key has exactly three parts, source:kind:id';
  for (const p of parts) {
    if (p.length === 0) return 'a part of the key is empty';
    if (p.startsWith('-')) return 'it starts with "-"';
    if (!PART.test(p)) return 'it has a character outside a-z 0-9 . _ -, or does not start with a letter or digit';
    if (p.includes('..')) return 'it contains ".."';
    if (p.endsWith('.lock')) return 'it ends in ".lock"';
    if (p.endsWith('.')) return 'it ends in "."';
  }
  return undefined;
}

export function formatItem(k: ItemKey): string {
  return `${k.source}:${k.kind}:${k.id}`;
}

/** The short form people type: the id alone for local items. */
export function shortItem(k: ItemKey): string {
  return k.source === 'local' && k.kind === 'item' ? k.id : formatItem(k);
}

function printable(text: string): string {
  const shown = text.length > 60 ? text.slice(0, 60) + '…' : text;
  // eslint-disable-next-line no-control-regex -- control characters are masked before the text is shown
  return shown.replace(/[\u0000-\u001f\u007f]/g, '?');
}
