// git's config file syntax, parsed in process: sections, subsections, quoted values, escapes,
// comments and continued lines. Anything this does not parse exactly (an include, a line git
// itself might refuse) answers undefined, and the caller asks git.

/** One `section[.subsection].name = value`, in file order; a bare key's value is ''. */
export interface ConfigEntry {
  /** As git canonicalises it: section and name lowercased, a quoted subsection kept as written. */
  key: string;
  value: string;
}

const SECTION = /^[A-Za-z0-9.-]+$/;
const NAME = /^[A-Za-z][A-Za-z0-9-]*/;

/** The entries of one config file; undefined for anything to leave to git (includes above all). */
export function parseConfig(text: string): ConfigEntry[] | undefined {
  const out: ConfigEntry[] = [];
  let section: string | undefined;
  // git reads "\r\n" as "\n" everywhere.
  text = text.replace(/\r\n/g, '\n');
  let i = 0;
  const n = text.length;
  if (text.startsWith('\ufeff')) i = 1;
  while (i < n) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      i++;
      continue;
    }
    if (c === '#' || c === ';') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
      continue;
    }
    if (c === '[') {
      const h = header(text, i);
      if (!h) return undefined;
      section = h.section;
      i = h.end;
      continue;
    }
    if (section === undefined) return undefined;
    const m = NAME.exec(text.slice(i, i + 256));
    if (!m) return undefined;
    const name = m[0].toLowerCase();
    i += m[0].length;
    while (text[i] === ' ' || text[i] === '\t') i++;
    let value = '';
    if (text[i] === '=') {
      const v = readValue(text, i + 1);
      if (!v) return undefined;
      value = v.value;
      i = v.end;
    } else if (i < n && text[i] !== '\n') return undefined;
    out.push({ key: `${section}.${name}`, value });
  }
  // Includes pull in other files, under conditions: git reads those.
  if (out.some((e) => /^include(?:if)?\./.test(e.key))) return undefined;
  return out;
}

/** `[section]`, `[section "sub"]` or the old `[section.sub]`, from `[` at `i`. */
function header(text: string, i: number): { section: string; end: number } | undefined {
  const close = text.indexOf(']', i);
  const nl = text.indexOf('\n', i);
  if (close < 0 || (nl >= 0 && nl < close)) return undefined;
  const inner = text.slice(i + 1, close);
  const sp = inner.search(/[ \t]/);
  if (sp < 0) {
    if (!SECTION.test(inner)) return undefined;
    // The old form `[section.sub]` lowercases the subsection too.
    return { section: inner.toLowerCase(), end: close + 1 };
  }
  const name = inner.slice(0, sp);
  if (!SECTION.test(name)) return undefined;
  const rest = inner.slice(sp).replace(/^[ \t]+/, '');
  // The quoted subsection may hold "]": read it from the text, not from `inner`.
  const start = i + 1 + sp + (inner.length - sp - rest.length);
  if (text[start] !== '"') return undefined;
  let sub = '';
  let j = start + 1;
  for (; j < text.length; j++) {
    const ch = text[j];
    if (ch === '\n' || ch === undefined) return undefined;
    if (ch === '"') break;
    if (ch === '\\') {
      j++;
      const e = text[j];
      if (e === undefined || e === '\n') return undefined;
      sub += e;
    } else sub += ch;
  }
  if (text[j + 1] !== ']') return undefined;
  return { section: `${name.toLowerCase()}.${sub}`, end: j + 2 };
}

/** A value after `=` at `i`, read as git's parse_value reads it: to the line's end outside quotes. */
function readValue(text: string, i: number): { value: string; end: number } | undefined {
  let value = '';
  let quoted = false;
  // Whitespace outside quotes: dropped before the value and at its end, one space per character between.
  let spaces = 0;
  for (; i < text.length; i++) {
    const c = text[i] ?? '';
    if (c === '\n') return quoted ? undefined : { value, end: i + 1 };
    if (!quoted && /[ \t\v\f\r]/.test(c)) {
      if (value.length) spaces++;
      continue;
    }
    if (!quoted && (c === '#' || c === ';')) {
      const nl = text.indexOf('\n', i);
      return { value, end: nl < 0 ? text.length : nl + 1 };
    }
    value += ' '.repeat(spaces);
    spaces = 0;
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (c === '\\') {
      const e = text[++i];
      if (e === '\n') continue;
      const esc = e === 'n' ? '\n' : e === 't' ? '\t' : e === 'b' ? '\b' : e === '\\' || e === '"' ? e : undefined;
      if (esc === undefined) return undefined;
      value += esc;
      continue;
    }
    value += c;
  }
  return quoted ? undefined : { value, end: i };
}
