// What every verb loads before it starts its first git process: the launcher's chunk and the
// fast path's, with everything they import statically. Schemas (zod), the yargs parser, TOML
// and the runtimes (their stream readers, the model gateway, the sandbox) are for the verbs
// that need them, loaded by those verbs; one static import of them here costs every call of
// every verb its start-up. Reads the built bundle and its source maps (npm run build).
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BUNDLE = resolve(import.meta.dirname, '../../dist/bundle');
const MAPS = resolve(import.meta.dirname, '../../dist/bundle-maps');

/** The chunks a chunk loads before it runs: itself and its static imports, transitively. */
async function staticClosure(entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const visit = async (chunk: string): Promise<void> => {
    if (seen.has(chunk)) return;
    seen.add(chunk);
    const text = await readFile(join(BUNDLE, chunk), 'utf8');
    // A static import is `import ... from "./x.js"` or `import "./x.js"`; `import("./x.js")` waits for its verb.
    for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*["'`]\.\/([^"'`]+\.js)["'`]/g)) await visit(m[1]!);
  };
  await visit(entry);
  return seen;
}

/** The source files a chunk was built from, as its source map names them. */
async function sourcesOf(chunk: string): Promise<string[]> {
  // The bundler's own helpers come with no map: they are no source of abcd's.
  if (chunk.startsWith('rolldown-runtime-')) return [];
  const map = JSON.parse(await readFile(join(MAPS, `${chunk}.map`), 'utf8')) as { sources: string[] };
  return map.sources;
}

/** The Node modules that a call may never use which these chunks load at once (src/core/builtins.ts loads them on first use). */
async function builtinsLoaded(chunks: Set<string>): Promise<string[]> {
  const texts = await Promise.all([...chunks].map((c) => readFile(join(BUNDLE, c), 'utf8')));
  return texts.flatMap((t) => [...t.matchAll(/\bfrom\s*["'`](node:(?:crypto|zlib|util))["'`]/g)].map((m) => m[1]!));
}

describe('start-up', () => {
  it('the launcher and the fast path load no schema library, no parser, no TOML and no runtime', async () => {
    const fastPath = (await readdir(BUNDLE)).find((f) => /^fast-verbs-.*\.js$/.test(f));
    expect(fastPath, 'the fast path is a chunk of its own').toBeDefined();
    const chunks = new Set([...(await staticClosure('abcd.js')), ...(await staticClosure(fastPath!))]);
    const sources = (await Promise.all([...chunks].map(sourcesOf))).flat();
    expect(sources.length).toBeGreaterThan(10);
    const heavy = sources.filter(
      (s) =>
        /node_modules\/(zod|yargs|smol-toml|yaml)\//.test(s) ||
        /\blanes\/runtimes\/[^/]+\//.test(s) ||
        /\bmachine\/(gateway|sandbox)\//.test(s),
    );
    expect(heavy).toEqual([]);
    expect(await builtinsLoaded(chunks)).toEqual([]);
    // The names and home variables of the runtimes are all the start needs of them.
    expect(sources.some((s) => /lanes\/runtimes\/homes\.[jt]s$/.test(s))).toBe(true);
  });

  it('status and reserve load no crypto, zlib or util before they need them', async () => {
    const verbs = (await readdir(BUNDLE)).filter((f) => /^(status|reserve)-[A-Za-z0-9_-]{8}\.js$/.test(f));
    expect(verbs).toHaveLength(2);
    const chunks = new Set((await Promise.all(verbs.map(staticClosure))).flatMap((c) => [...c]));
    expect(await builtinsLoaded(chunks)).toEqual([]);
  });
});
