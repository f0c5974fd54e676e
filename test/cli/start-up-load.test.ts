// What every verb loads before it starts its first git process: the launcher's chunk and the
// fast path's, with everything they import statically. Schemas (zod), the yargs parser, TOML
// and the runtimes (their stream readers, the model gateway, the sandbox) are for the verbs
// that need them, loaded by those verbs; one static import of them here costs every call of
// every verb its start-up. Reads the built bundle and its source maps (npm run build).
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTemp, tempDir } from '../harness/git-env.js';
import { makeRemote } from '../harness/remote.js';
import { makeSession } from '../harness/session.js';

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

/** Node's own list of the modules a run loaded, written as it exits: the environment that asks for it, and its reader. */
async function moduleList(): Promise<{ env: Record<string, string>; read: () => Promise<string[]> }> {
  const dir = await tempDir('loaded');
  const hook = join(dir, 'hook.mjs');
  const list = join(dir, 'loaded');
  await writeFile(
    hook,
    `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));\n`,
  );
  return { env: { NODE_OPTIONS: `--import=${hook}` }, read: async () => (await readFile(list, 'utf8')).split('\n') };
}

describe('what a read loads as it runs', () => {
  afterAll(cleanupTemp);

  it('status on an empty remote hashes, inflates and paints nothing, so it loads no crypto, zlib or util', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'reader');
    const { env, read } = await moduleList();
    const heavy = async () => (await read()).filter((m) => /^NativeModule (crypto|zlib|util)$/.test(m));
    // What Node itself loads with the hook (util, for --import) is no verb's doing.
    await execa(process.execPath, ['-e', '0'], { env: { ...s.env, ...env }, extendEnv: false });
    const node = await heavy();
    const loaded = async (args: string[]) => {
      const r = await s.abcd(args, { env });
      expect(r.code, r.stderr).toBe(0);
      return (await heavy()).filter((m) => !node.includes(m));
    };
    // The first read writes the clock's last read; the next ones replace it (a temporary file
    // beside it, named without node:crypto).
    expect(await loaded(['status'])).toEqual([]);
    expect(await loaded(['status'])).toEqual([]);
    expect(await loaded(['status', '--json'])).toEqual([]);
  });

  // Node's http stack, with the fetch client it brings, costs 40-60 ms to load: the verbs load it
  // where they use it (a land's check network, a lane's gateway), never on the path without them.
  it('status, reserve and a land with no checks load no http stack', async () => {
    const remote = await makeRemote();
    const s = await makeSession(remote.url, 'lean');
    const { env, read } = await moduleList();
    const http = async (args: string[]) => {
      const r = await s.abcd(args, { env });
      expect(r.code, r.stderr).toBe(0);
      const seen = await read();
      // The hook saw the run: the child_process abcd runs git with is there.
      expect(seen, args[0]).toContain('NativeModule child_process');
      return seen.filter((m) => /^NativeModule (http|_http_client|http2|tls|internal\/deps\/undici\/undici)$/.test(m));
    };
    expect(await http(['status', '--json'])).toEqual([]);
    expect(await http(['reserve', 'lean-item', '--json'])).toEqual([]);
    await s.git(['checkout', '-q', '-b', 'work/lean-item']);
    await s.commit('lean.txt', 'lean\n');
    expect(await http(['land', 'lean-item', '--json'])).toEqual([]);
    // It landed: main on the remote is the work.
    expect((await remote.refs()).get('refs/heads/main')).toBe(await s.git(['rev-parse', 'HEAD']));
  });
});
