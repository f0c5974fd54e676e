// The shape of src/: no import cycle between files, imports between top-level folders only
// downward in the layering below, and every file opening with a comment that says what it is.
// Imports are read from each file's syntax tree (TypeScript's own parser), so static imports,
// `import type`, `export ... from`, dynamic `import()` and `typeof import()` all count, and
// nothing in a comment or a string does.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

// Lowest first: a folder may import itself and the folders before it, never one after it.
const LAYERS = [
  'core',
  'git',
  'records',
  'machine',
  'forges',
  'repo',
  'settings',
  'claims',
  'items',
  'land',
  'steering',
  'lanes',
  'status',
  'serve',
  'setup',
  'cli',
] as const;

/** Every .ts file under src/, as a path relative to it. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

/** The module specifiers a file imports, in every form TypeScript knows. */
function importsOf(text: string, fileName = 'file.ts'): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      // A computed specifier cannot be checked: the layering must be readable from the source.
      if (!arg || !ts.isStringLiteralLike(arg)) throw new Error(`${fileName}: import() of a computed specifier: ${node.getText(file)}`);
      out.push(arg.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push(node.argument.literal.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const ref = node.moduleReference.expression;
      if (ts.isStringLiteral(ref)) out.push(ref.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** The src files a file imports (relative specifiers only; `.js` names the `.ts` source). */
function localImports(file: string, known: Set<string>): string[] {
  const specs = importsOf(readFileSync(join(SRC, file), 'utf8'), file).filter((s) => s.startsWith('.'));
  return specs.map((s) => {
    const target = relative(SRC, resolve(SRC, dirname(file), s)).replace(/\.js$/, '.ts');
    if (!known.has(target)) throw new Error(`${file} imports ${s}, which is no file under src/ (${target})`);
    return target;
  });
}

type Graph = Map<string, string[]>;

function importGraph(): Graph {
  const files = sourceFiles();
  const known = new Set(files);
  return new Map(files.map((f) => [f, [...new Set(localImports(f, known))]]));
}

/** Every import cycle, each as the files around it (Tarjan's strongly connected components). */
function cycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return out;
}

/** One path around a cycle, to name it: a -> b -> ... -> a. */
function describeCycle(graph: Graph, component: string[]): string {
  const inside = new Set(component);
  const start = component[0]!;
  const seen = new Map<string, string>([[start, '']]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let p = v; p !== start;) path.unshift((p = seen.get(p)!));
        return [...path, start].join(' -> ');
      }
      if (!seen.has(w)) {
        seen.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.join(', ');
}

/** Imports that run upward: from a folder to one later in LAYERS. */
function upwardImports(graph: Graph): string[] {
  const rank = (file: string): number => {
    const top = file.split('/')[0]!;
    const at = (LAYERS as readonly string[]).indexOf(top);
    if (at < 0) throw new Error(`src/${file} is in no known folder (${top}/): add the folder to LAYERS in its place`);
    return at;
  };
  return [...graph].flatMap(([from, tos]) => tos.filter((to) => rank(to) > rank(from)).map((to) => `${from} -> ${to}`));
}

// git's subcommands: an array opening with one of these and holding a flag or a value computed
// at run time, outside src/git, is a git command line written by a domain. A list of plain words
// (a strategy's names: rebase, merge, squash) is not one; a call such code could make no longer
// compiles, since the client has no run or must.
const GIT_SUBCOMMANDS = new Set(
  (
    'add am apply branch cat-file checkout cherry-pick clone commit commit-tree config diff diff-tree fetch for-each-ref fsck gc ' +
    'grep hash-object index-pack init log ls-files ls-remote ls-tree merge merge-base mktree mv pack-objects push read-tree rebase ' +
    'remote reset rev-list rev-parse rm show show-ref stash status symbolic-ref tag unpack-objects update-index update-ref ' +
    'verify-commit worktree write-tree'
  ).split(' '),
);
// `-c key=value` pairs of git's own config (the quiet flags, upload-pack's): a git command line too.
const GIT_CONFIG_PAIR = /^(commit|core|uploadpack|gpg|user|remote|protocol|credential|http|maintenance)\./;

/** The git command lines a file writes itself: arrays opening with a git subcommand, and `...('git', ...)` calls. */
function gitCommandLines(text: string, fileName = 'file.ts'): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const word = (n: ts.Node | undefined) => (n && ts.isStringLiteralLike(n) ? n.text : undefined);
  const at = (n: ts.Node) =>
    `${fileName}:${file.getLineAndCharacterOfPosition(n.getStart(file)).line + 1}: ${n.getText(file).slice(0, 80)}`;
  const visit = (node: ts.Node): void => {
    if (ts.isArrayLiteralExpression(node)) {
      const words = node.elements.map(word);
      const [first, second] = words;
      const argv = words.some((w) => w === undefined || w.startsWith('-'));
      if ((first !== undefined && GIT_SUBCOMMANDS.has(first) && argv) || (first === '-c' && GIT_CONFIG_PAIR.test(second ?? '')))
        out.push(at(node));
    } else if (ts.isCallExpression(node) && word(node.arguments[0]) === 'git') out.push(at(node));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

// Outside src/forges a forge is reached through its interface (forge.ts, the registries, the
// login check, the landed reader), never through one provider's folder: nothing there can ask
// which forge it holds. The files below are GitHub's own verbs and words, on purpose.
const PROVIDER_FOLDER_ALLOWED: Readonly<Record<string, string>> = {
  'cli/commands/setup-app.ts': '`abcd setup-app` sets up the GitHub App',
  'cli/commands/credential.ts': "`abcd credential` is git's side of the credential channel GitHub's App token travels in",
};

/** Imports of a provider's folder (forges/<provider>/...) from outside src/forges, but the allowed. */
function providerReaches(graph: Graph): string[] {
  const inProvider = (f: string) => f.startsWith('forges/') && f.split('/').length > 2;
  return [...graph].flatMap(([from, tos]) =>
    from.startsWith('forges/') || from in PROVIDER_FOLDER_ALLOWED ? [] : tos.filter(inProvider).map((to) => `${from} -> ${to}`),
  );
}

// Outside the runtimes (and the config that reads a runtime's name) nothing decides by a
// runtime's name: what differs between runtimes is a field or a method of its spec.
const RUNTIME_NAMES = new Set(['command', 'claude', 'codex', 'gemini']);
const RUNTIME_NAME_ALLOWED = (f: string) => f.startsWith('lanes/runtimes/') || f === 'repo/config.ts';
const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** Comparisons against a runtime's name: `x === 'codex'`, `'claude' !== x`, `case 'gemini':`. */
function runtimeNameChecks(text: string, fileName = 'file.ts'): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const named = (n: ts.Node) => ts.isStringLiteralLike(n) && RUNTIME_NAMES.has(n.text);
  const at = (n: ts.Node) =>
    `${fileName}:${file.getLineAndCharacterOfPosition(n.getStart(file)).line + 1}: ${n.getText(file).slice(0, 80)}`;
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind) && (named(node.left) || named(node.right))) out.push(at(node));
    else if (ts.isCaseClause(node) && named(node.expression)) out.push(at(node));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/**
 * Catch handlers that let every error go: `catch {`, `catch (_e)`, `.catch(() => ...)`. Each must
 * say why on its own line, the line before or the line after: what it cleans up, the single parse
 * it guards, the best-effort step and its test, or where the error is awaited instead.
 */
function unexplainedCatches(text: string, fileName = 'file.ts'): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const lines = text.split('\n');
  const out: string[] = [];
  const explained = (line: number) => [line - 1, line, line + 1].some((l) => /\/\/|\/\*/.test(lines[l] ?? ''));
  const ignored = (name: ts.BindingName | undefined) => !name || (ts.isIdentifier(name) && name.text.startsWith('_'));
  const visit = (node: ts.Node): void => {
    let at: ts.Node | undefined;
    if (ts.isCatchClause(node) && ignored(node.variableDeclaration?.name)) at = node;
    else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'catch') {
      const [handler] = node.arguments;
      if (handler && (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler)) && handler.parameters.every((p) => ignored(p.name)))
        at = handler;
    }
    if (at) {
      const line = file.getLineAndCharacterOfPosition(at.getStart(file)).line;
      if (!explained(line)) out.push(`${fileName}:${line + 1}: ${lines[line]!.trim().slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

describe('architecture of src/', () => {
  const graph = importGraph();

  it('reads every kind of import, and none in comments or strings', () => {
    const text = [
      "import a from './a.js';",
      "import type { B } from './b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const e = await import('./e.js');",
      "let f: typeof import('./f.js');",
      "// import g from './g.js';",
      'const h = "import(\'./h.js\')";',
    ].join('\n');
    expect(importsOf(text)).toEqual(['./a.js', './b.js', './c.js', './d.js', './e.js', './f.js']);
    expect(() => importsOf('const m = "./x.js"; await import(m);')).toThrow(/computed specifier/);
  });

  it('finds a cycle and names it, and finds an upward import', () => {
    const toy: Graph = new Map([
      ['core/a.ts', ['git/b.ts']],
      ['git/b.ts', ['core/c.ts']],
      ['core/c.ts', ['core/a.ts']],
    ]);
    const [found] = cycles(toy);
    expect(found).toEqual(['core/a.ts', 'core/c.ts', 'git/b.ts']);
    expect(describeCycle(toy, found!)).toBe('core/a.ts -> git/b.ts -> core/c.ts -> core/a.ts');
    expect(upwardImports(toy)).toEqual(['core/a.ts -> git/b.ts']);
  });

  it('has no import cycle between files but the ones listed to be removed', () => {
    expect(cycles(graph).map((c) => describeCycle(graph, c))).toEqual([]);
  });

  it('imports between top-level folders only downward', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('finds a git command line in an array of words and in a call that spawns git', () => {
    const text = [
      "await git.run(['rev-parse', '--verify', x]);",
      "const QUIET = ['-c', 'commit.gpgsign=false'];",
      "await spawnProcess('git', args);",
      "const verbs = ['land', 'claim'];",
      "const strategies = ['rebase', 'merge', 'squash'];",
      "const codex = ['-c', 'model_provider=x'];",
    ].join('\n');
    expect(gitCommandLines(text).map((l) => l.split(':')[1])).toEqual(['1', '2', '3']);
  });

  it('writes git command lines only in src/git, whose runner nothing outside it imports', () => {
    const outside = [...graph.keys()].filter((f) => !f.startsWith('git/'));
    expect(outside.flatMap((f) => gitCommandLines(readFileSync(join(SRC, f), 'utf8'), f))).toEqual([]);
    expect(outside.flatMap((f) => (graph.get(f)!.includes('git/runner.ts') ? [f] : []))).toEqual([]);
  });

  it("reaches a forge only through its interface outside src/forges, never a provider's folder", () => {
    expect(providerReaches(graph)).toEqual([]);
    const toy: Graph = new Map([
      ['land/a.ts', ['forges/forge.ts', 'forges/github/merge.ts']],
      ['forges/registry.ts', ['forges/github/provider.ts']],
    ]);
    expect(providerReaches(toy)).toEqual(['land/a.ts -> forges/github/merge.ts']);
  });

  it("finds a decision by a runtime's name in a comparison and in a switch's case", () => {
    const text = [
      "if (runtime.name === 'codex') x();",
      "const plain = 'claude' !== name;",
      "switch (r) { case 'gemini': break; }",
      "const label = 'command';",
      "if (kind === 'commander') y();",
      "const names = ['claude', 'codex'];",
    ].join('\n');
    expect(runtimeNameChecks(text).map((l) => l.split(':')[1])).toEqual(['1', '2', '3']);
  });

  it("decides by a runtime's name only inside the runtimes", () => {
    const outside = [...graph.keys()].filter((f) => !RUNTIME_NAME_ALLOWED(f));
    expect(outside.flatMap((f) => runtimeNameChecks(readFileSync(join(SRC, f), 'utf8'), f))).toEqual([]);
  });

  it('finds a catch that lets every error go and says nothing of why', () => {
    const text = [
      'try { a(); } catch { b(); }',
      'p.catch(() => undefined);',
      'p.catch((_e) => 0);',
      'try { a(); } catch (e) { if (!gone(e)) throw e; }',
      'p.catch(unlessMissing(undefined));',
      '',
      '',
      'p.catch(() => undefined); // cleanup: the file may already be gone',
      '',
      '// a single parse: text from a file anyone may write',
      'try { JSON.parse(t); } catch { return undefined; }',
    ].join('\n');
    expect(unexplainedCatches(text).map((l) => l.split(':')[1])).toEqual(['1', '2', '3']);
  });

  it('explains every catch that lets every error go', () => {
    expect([...graph.keys()].flatMap((f) => unexplainedCatches(readFileSync(join(SRC, f), 'utf8'), f))).toEqual([]);
  });

  it('opens every file with a comment that says what it is', () => {
    const opensWithComment = (f: string) => /^(\/\/ ?\S|\/\*)/.test(readFileSync(join(SRC, f), 'utf8'));
    expect([...graph.keys()].filter((f) => !opensWithComment(f))).toEqual([]);
  });
});
