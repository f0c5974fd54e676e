// HTML built by a tagged template that escapes every interpolated value unless it is already
// markup this module made: record-derived text (item titles, holder names, reasons, logs) can
// only ever reach the page as text. Hostile text is sanitized too (no controls, bidi or
// invisible characters), as everywhere abcd shows it.
import { sanitizeText } from '../core/sanitize.js';

/** Markup: made only by `html` and `joinHtml`, so it cannot hold unescaped record text. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text escaped for an element's content or a quoted attribute. */
export function escapeHtml(text: string): string {
  return sanitizeText(text).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function part(p: Part): string {
  if (p === null || p === undefined || p === false) return '';
  if (p instanceof Html) return p.text;
  if (Array.isArray(p)) return (p as readonly Part[]).map(part).join('');
  return escapeHtml(String(p as string | number | boolean));
}

/** `html\`<td>${title}</td>\``: the template's own text is markup, every value is escaped. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += part(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** A URL path segment or query value: percent-encoded, then escaped as an attribute. */
export function urlPart(text: string): string {
  return encodeURIComponent(text);
}
