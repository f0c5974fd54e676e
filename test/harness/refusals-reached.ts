// Which refusal classes a verb can construct, read from the source. It starts at everything
// the verb's command file declares and follows names: a top-level declaration (function,
// class, const) reaches the declarations its body names, in its own module or, through an
// import, in another; an import() of a literal path reaches everything that module declares.
// Names in type positions and type-only imports load nothing, so they are not followed. In
// every declaration reached, `new X(` of a class exported by src/core/refusals.ts counts.
// It over-approximates: a reached function that builds a refusal on a path this verb never
// takes still counts (ADR 0053 says what "can give" means and where this stops).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

/** A declaration: `module#name`; `module#*` is all of a module, `module#` its top-level code. */
type Key = string;

interface Module {
  /** Each top-level name's references and the refusal classes it constructs. */
  decls: Map<string, { refs: Key[]; constructs: string[] }>;
  /** What loading the module runs: statements that are no declaration. */
  init: { refs: Key[]; constructs: string[] };
  /** `export { a as b }`: exported name to local name; `export { x } from` and `export *`. */
  exportAliases: Map<string, string>;
  reExports: Map<string, Key>;
  starFrom: string[];
}

const REFUSALS_MODULE = resolve(import.meta.dirname, '../../src/core/refusals.ts');
const modules = new Map<string, Module>();

function resolveSpec(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined; // node: built-ins and packages construct no abcd refusal
  const target = resolve(dirname(from), spec.replace(/\.js$/, '.ts'));
  if (!existsSync(target)) throw new Error(`${from} imports ${spec}, which is not in src/`);
  return target;
}

function readModule(file: string, unfollowed: string[]): Module {
  const known = modules.get(file);
  if (known) return known;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  // Local name -> the declaration it imports (`module#name`, or `module#*` for `import * as`).
  const imported = new Map<string, Key>();
  const m: Module = { decls: new Map(), init: { refs: [], constructs: [] }, exportAliases: new Map(), reExports: new Map(), starFrom: [] };
  const topLevel = new Set<string>();
  const bodies: Array<[string | undefined, ts.Node]> = [];
  for (const st of source.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const target = resolveSpec(file, st.moduleSpecifier.text);
      const clause = st.importClause;
      if (!target || !clause || clause.isTypeOnly) continue;
      if (clause.name) imported.set(clause.name.text, `${target}#default`);
      const named = clause.namedBindings;
      if (named && ts.isNamespaceImport(named)) imported.set(named.name.text, `${target}#*`);
      else if (named)
        for (const e of named.elements)
          if (!e.isTypeOnly) imported.set(e.name.text, `${target}#${(e.propertyName ?? e.name).getText(source)}`);
    } else if (ts.isExportDeclaration(st)) {
      if (st.isTypeOnly) continue;
      const target = st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? resolveSpec(file, st.moduleSpecifier.text) : undefined;
      if (st.moduleSpecifier && !target) continue;
      if (!st.exportClause) m.starFrom.push(target!);
      else if (ts.isNamedExports(st.exportClause))
        for (const e of st.exportClause.elements) {
          if (e.isTypeOnly) continue;
          const local = (e.propertyName ?? e.name).getText(source);
          if (target) m.reExports.set(e.name.text, `${target}#${local}`);
          else m.exportAliases.set(e.name.text, local);
        }
    } else if (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) {
      if (st.name) topLevel.add(st.name.text);
      bodies.push([st.name?.text, st]);
    } else if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        const names = boundNames(d.name);
        names.forEach((n) => topLevel.add(n));
        for (const n of names) bodies.push([n, d]);
      }
    } else if (!ts.isInterfaceDeclaration(st) && !ts.isTypeAliasDeclaration(st)) {
      bodies.push([undefined, st]);
    }
  }
  for (const [name, node] of bodies) {
    const found = { refs: [] as Key[], constructs: [] as string[] };
    const visit = (n: ts.Node): void => {
      if (ts.isTypeNode(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n)) return;
      if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const [arg] = n.arguments;
        if (arg && ts.isStringLiteralLike(arg)) {
          const target = resolveSpec(file, arg.text);
          if (target) found.refs.push(`${target}#*`);
        } else unfollowed.push(`${file}:${source.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
      }
      if (ts.isNewExpression(n) && ts.isIdentifier(n.expression)) {
        const key = imported.get(n.expression.text);
        if (key?.startsWith(`${REFUSALS_MODULE}#`)) found.constructs.push(key.slice(REFUSALS_MODULE.length + 1));
      }
      // A name read as a value: not the property after a dot, nor a key in an object literal.
      if (
        ts.isIdentifier(n) &&
        !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n) &&
        !(ts.isPropertyAssignment(n.parent) && n.parent.name === n)
      ) {
        if (topLevel.has(n.text)) found.refs.push(`${file}#${n.text}`);
        const key = imported.get(n.text);
        if (key) found.refs.push(key);
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
    if (name === undefined) {
      m.init.refs.push(...found.refs);
      m.init.constructs.push(...found.constructs);
    } else {
      const had = m.decls.get(name);
      m.decls.set(name, had ? { refs: [...had.refs, ...found.refs], constructs: [...had.constructs, ...found.constructs] } : found);
    }
  }
  modules.set(file, m);
  return m;
}

function boundNames(b: ts.BindingName): string[] {
  if (ts.isIdentifier(b)) return [b.text];
  return b.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : boundNames(e.name)));
}

export interface Reach {
  /** Each refusal class constructed, with the declarations (`file#name`, relative to src/) that construct it. */
  constructed: Map<string, string[]>;
  /** For each class, the chain of declarations from the root to the first one that constructs it. */
  why: Map<string, string[]>;
  /** import() calls whose path is not a literal: the analysis cannot follow them. */
  unfollowed: string[];
}

/**
 * A call whose refusals the caller catches and answers otherwise: `from` (`file#name`,
 * relative to src/) reaches `to` only inside such a catch, so `to`'s refusals are not `from`'s.
 */
export interface Caught {
  from: string;
  to: string;
  because: string;
}

/** The refusal classes constructed by what `root` declares and everything that reaches, but through a caught call. */
export function refusalsReached(root: string, srcDir: string, caught: readonly Caught[] = []): Reach {
  const cut = new Set(caught.map((c) => `${resolve(srcDir, c.from)}>${resolve(srcDir, c.to)}`));
  const unfollowed: string[] = [];
  const constructed = new Map<string, string[]>();
  const seen = new Set<Key>();
  const why = new Map<string, string[]>();
  const parent = new Map<Key, Key>();
  const todo: Key[] = [`${resolve(root)}#*`];
  const push = (from: Key, keys: Key[]) => {
    const followed = keys.filter((k) => !cut.has(`${from}>${k}`));
    for (const k of followed) if (!parent.has(k)) parent.set(k, from);
    todo.push(...followed);
  };
  const chain = (key: Key): string[] => {
    const out: string[] = [];
    for (let k: Key | undefined = key; k !== undefined && out.length < 50; k = parent.get(k)) out.unshift(relative(srcDir, k));
    return out;
  };
  const note = (key: Key, found: { refs: Key[]; constructs: string[] }) => {
    push(key, found.refs);
    const where = relative(srcDir, key);
    for (const c of new Set(found.constructs)) {
      constructed.set(c, [...(constructed.get(c) ?? []), where]);
      if (!why.has(c)) why.set(c, chain(key));
    }
  };
  while (todo.length) {
    const key = todo.pop()!;
    if (seen.has(key)) continue;
    seen.add(key);
    const hash = key.lastIndexOf('#');
    const file = key.slice(0, hash);
    const name = key.slice(hash + 1);
    const m = readModule(file, unfollowed);
    // Reaching any name loads the module: its top-level code runs.
    if (!seen.has(`${file}#`)) {
      seen.add(`${file}#`);
      parent.set(`${file}#`, key);
      note(`${file}#`, m.init);
    }
    if (name === '*') {
      for (const [n, d] of m.decls)
        if (!seen.has(`${file}#${n}`)) {
          if (!parent.has(`${file}#${n}`)) parent.set(`${file}#${n}`, key);
          note(`${file}#${n}`, d);
        }
      push(key, [...m.reExports.values(), ...m.starFrom.map((f) => `${f}#*`)]);
      continue;
    }
    const local = m.exportAliases.get(name) ?? name;
    const d = m.decls.get(local);
    if (d) note(key, d);
    else if (m.reExports.has(name)) push(key, [m.reExports.get(name)!]);
    else
      push(
        key,
        m.starFrom.map((f) => `${f}#${name}`),
      );
  }
  return { constructed, why, unfollowed: [...new Set(unfollowed)].map((u) => relative(srcDir, u)) };
}
