// GitLab's `rules:` as its documentation defines them, enough to judge a generated job: which
// keys a rule may have, which `when` values exist, the `if` expression language (CI/CD variable
// expressions: `$VAR`, `==` and `!=` against a quoted string, another variable or `null`, `=~`
// and `!~` against a /regex/, `&&` binding tighter than `||`, parentheses), and the evaluation
// (the first rule whose clauses all match decides; none matching leaves the job out). A rule
// this file cannot parse is an error, never a guess.

/** Keys a rule may have (GitLab's `rules` reference). */
export const RULE_KEYS = ['if', 'changes', 'exists', 'when', 'allow_failure', 'needs', 'variables', 'interruptible'] as const;
export const WHEN_VALUES = ['on_success', 'on_failure', 'never', 'always', 'manual', 'delayed'] as const;

/** Every value of CI_PIPELINE_SOURCE GitLab documents. */
export const PIPELINE_SOURCES = [
  'api',
  'chat',
  'external',
  'external_pull_request_event',
  'merge_request_event',
  'ondemand_dast_scan',
  'ondemand_dast_validation',
  'parent_pipeline',
  'pipeline',
  'push',
  'schedule',
  'security_orchestration_policy',
  'trigger',
  'web',
  'webide',
] as const;

/** resource_group: letters, digits, -, _, /, $, {, }, . and spaces; not starting or ending with /. */
export function validResourceGroup(name: string): boolean {
  return /^[A-Za-z0-9_\-/${}. ]+$/.test(name) && !name.startsWith('/') && !name.endsWith('/');
}

type Token = { t: 'var' | 'str' | 're' | 'null' | 'op' | '(' | ')'; v: string };

// Each token's pattern, tried in order; the first group that matched is its value.
const TOKENS: Array<[Token['t'], RegExp]> = [
  ['var', /^\$([A-Za-z_][A-Za-z0-9_]*)/],
  ['str', /^"([^"]*)"|^'([^']*)'/],
  ['re', /^\/((?:\\.|[^/\\])*)\/([a-z]*)/],
  ['op', /^(==|!=|=~|!~|&&|\|\|)/],
  ['null', /^null\b/],
  ['(', /^\(/],
  [')', /^\)/],
];

function tokenize(expr: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < expr.length) {
    const rest = expr.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const hit = TOKENS.map(([t, re]) => [t, re.exec(rest)] as const).find(([, m]) => m);
    if (!hit) throw new Error(`not GitLab expression syntax at "${rest}" in ${expr}`);
    const [t, m] = hit as [Token['t'], RegExpExecArray];
    out.push({ t, v: t === 're' ? `${m[2]}\u0000${m[1]}` : (m[1] ?? m[2] ?? m[0]) });
    i += m[0].length;
  }
  return out;
}

/** Evaluates an `if:` expression against the pipeline's variables (unset: undefined). */
export function evaluateIf(expr: string, vars: Readonly<Record<string, string | undefined>>): boolean {
  const toks = tokenize(expr);
  let p = 0;
  const peek = () => toks[p];
  const take = () => toks[p++] ?? fail('unexpected end');
  const fail = (why: string): never => {
    throw new Error(`${why} in ${expr}`);
  };
  const operand = (): string | null | RegExp => {
    const k = take();
    if (k.t === 'var') return vars[k.v] ?? null;
    if (k.t === 'str') return k.v;
    if (k.t === 'null') return null;
    if (k.t === 're') {
      const [flags, src] = k.v.split('\u0000') as [string, string];
      return new RegExp(src, flags);
    }
    return fail(`an operand expected, got ${k.v}`);
  };
  const comparison = (): boolean => {
    if (peek()?.t === '(') {
      take();
      const v = or();
      if (take().t !== ')') fail('")" expected');
      return v;
    }
    const left = operand();
    const op = peek();
    if (op?.t !== 'op' || op.v === '&&' || op.v === '||') {
      // A lone variable: defined and not empty.
      if (typeof left !== 'string' && left !== null) fail('a regex cannot stand alone');
      return typeof left === 'string' && left !== '';
    }
    take();
    const right = operand();
    if (op.v === '=~' || op.v === '!~') {
      if (!(right instanceof RegExp)) fail(`${op.v} needs a /regex/`);
      const hit = typeof left === 'string' && (right as RegExp).test(left);
      return op.v === '=~' ? hit : !hit;
    }
    if (right instanceof RegExp || left instanceof RegExp) fail(`${op.v} compares strings, variables or null`);
    return op.v === '==' ? left === right : left !== right;
  };
  const and = (): boolean => {
    let v = comparison();
    while (peek()?.v === '&&') {
      take();
      v = comparison() && v;
    }
    return v;
  };
  const or = (): boolean => {
    let v = and();
    while (peek()?.v === '||') {
      take();
      v = and() || v;
    }
    return v;
  };
  const v = or();
  if (p !== toks.length) fail(`unexpected ${toks[p]!.v}`);
  return v;
}

export type Rule = Record<string, unknown>;

/** Checks each rule's keys and `when`; throws naming what GitLab would reject. */
export function checkRules(rules: unknown): Rule[] {
  if (!Array.isArray(rules) || rules.length === 0) throw new Error('rules must be a non-empty array');
  for (const r of rules as Rule[]) {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw new Error(`a rule is a hash: ${JSON.stringify(r)}`);
    for (const k of Object.keys(r)) if (!(RULE_KEYS as readonly string[]).includes(k)) throw new Error(`unknown rule key ${k}`);
    if ('when' in r && !(WHEN_VALUES as readonly string[]).includes(String(r.when))) throw new Error(`unknown when: ${String(r.when)}`);
    if ('if' in r && typeof r.if !== 'string') throw new Error('if: must be a string');
  }
  return rules as Rule[];
}

/** Whether the job is in the pipeline: the first rule whose `if` matches (a rule without one always does) decides. */
export function jobRuns(rules: Rule[], vars: Readonly<Record<string, string | undefined>>): boolean {
  for (const r of rules) {
    if (typeof r.if === 'string' && !evaluateIf(r.if, vars)) continue;
    return (r.when ?? 'on_success') !== 'never';
  }
  return false;
}
