// Evaluates the few GitHub Actions expressions the generated workflow uses (`${{ ... }}`), so a
// test can hand a job's steps the values the runner would compute from an event payload, rather
// than the test's own guess at them. The subset: property paths (with the `.*.` object filter),
// '...' literals, contains(), ==, !=, &&, || and parentheses, with GitHub's rules: strings compare
// without case, `||` and `&&` answer one of their operands, a missing property is null.
// Anything else throws, so a template using more than this fails its test instead of passing.

export type Context = Record<string, unknown>;

const TOKEN = /\s*(\|\||&&|==|!=|\(|\)|,|'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_-]*(?:\.(?:\*|[A-Za-z_][A-Za-z0-9_-]*))*)/y;

/** The value of `${{ expr }}` (or a bare expression) in `ctx`, as the runner turns it into text. */
export function evaluateText(template: string, ctx: Context): string {
  return template.replace(/\$\{\{(.*?)\}\}/g, (_, e: string) => toText(evaluate(e, ctx)));
}

export function evaluate(expr: string, ctx: Context): unknown {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expr.trimEnd().length) {
    const m = TOKEN.exec(expr);
    if (!m) throw new Error(`actions-expr: cannot read "${expr}" at ${TOKEN.lastIndex}`);
    tokens.push(m[1]!);
  }
  let at = 0;
  const peek = () => tokens[at];
  const take = (want?: string) => {
    const t = tokens[at++];
    if (t === undefined || (want !== undefined && t !== want)) throw new Error(`actions-expr: expected ${want ?? 'more'} in "${expr}"`);
    return t;
  };
  const primary = (): unknown => {
    const t = take();
    if (t === '(') {
      const v = or();
      take(')');
      return v;
    }
    if (t.startsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
    if (t === 'true' || t === 'false') return t === 'true';
    if (peek() === '(') {
      take('(');
      const args = [or()];
      while (peek() === ',') args.push((take(','), or()));
      take(')');
      return call(t, args);
    }
    return lookup(t, ctx);
  };
  const eq = (): unknown => {
    const left = primary();
    const op = peek();
    if (op !== '==' && op !== '!=') return left;
    take();
    const same = looseEqual(left, primary());
    return op === '==' ? same : !same;
  };
  const and = (): unknown => {
    let v = eq();
    while (peek() === '&&') {
      take();
      const r = eq();
      v = truthy(v) ? r : v;
    }
    return v;
  };
  const or = (): unknown => {
    let v = and();
    while (peek() === '||') {
      take();
      const r = and();
      v = truthy(v) ? v : r;
    }
    return v;
  };
  const v = or();
  if (at !== tokens.length) throw new Error(`actions-expr: "${tokens[at]}" left over in "${expr}"`);
  return v;
}

function lookup(path: string, ctx: Context): unknown {
  let values: unknown[] = [ctx];
  let filtered = false;
  for (const part of path.split('.')) {
    if (part === '*') {
      values = values.flatMap((v) => (Array.isArray(v) ? v : v && typeof v === 'object' ? Object.values(v) : []));
      filtered = true;
    } else values = values.map((v) => (v && typeof v === 'object' ? ((v as Record<string, unknown>)[part] ?? null) : null));
  }
  return filtered ? values.filter((v) => v !== null) : (values[0] ?? null);
}

function call(name: string, args: unknown[]): unknown {
  if (name === 'contains' && args.length === 2) {
    const [hay, needle] = args;
    if (Array.isArray(hay)) return hay.some((h) => looseEqual(h, needle));
    return toText(hay).toLowerCase().includes(toText(needle).toLowerCase());
  }
  throw new Error(`actions-expr: no function ${name}/${args.length} in this subset`);
}

function looseEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  return a === b;
}

function truthy(v: unknown): boolean {
  return !(v === null || v === undefined || v === false || v === '' || v === 0);
}

function toText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
