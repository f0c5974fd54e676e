// Bundles the compiled CLI into dist/bundle/: `abcd.js`, the entry bin/abcd loads, reads the
// everyday verbs without yargs (ADR 0038); `main.js` holds the parser and every command's
// declaration, loaded only when the fast path hands over; each lazily imported verb is a
// chunk of its own with its own dependencies. Loading a few files instead of hundreds of small
// ESM modules is most of abcd's start-up cost (ADR 0011; figures in bench/).
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { build } from 'rolldown';

const dist = new URL('../dist/', import.meta.url).pathname;
// The oldest Node package.json's engines allow (">=22" builds for node22).
const engines = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
const NODE_TARGET = `node${/^>=(\d+)$/.exec(engines)?.[1] ?? fail(`engines.node is "${engines}": expected ">=N"`)}`;
await rm(`${dist}bundle`, { recursive: true, force: true });
await rm(`${dist}bundle-maps`, { recursive: true, force: true });
await build({
  input: { abcd: `${dist}cli/fast-path.js`, main: `${dist}cli/main.js` },
  platform: 'node',
  logLevel: 'warn',
  // Syntax newer than that Node has is lowered, and the minifier writes nothing it lacks.
  transform: { target: NODE_TARGET },
  // Minified: less to read and parse on every start (ADR 0038). The source maps give --debug
  // stacks abcd's own names and lines back (bin/abcd turns them on for --debug only).
  output: {
    dir: `${dist}bundle`,
    format: 'esm',
    chunkFileNames: '[name]-[hash].js',
    minify: { compress: { target: NODE_TARGET } },
    sourcemap: true,
  },
});

// The maps live beside the bundle, not in it: the package ships dist/bundle only (an installed
// abcd's --debug stack then names minified functions; a checkout's names abcd's sources).
await mkdir(`${dist}bundle-maps`);
for (const f of await readdir(`${dist}bundle`)) {
  if (!f.endsWith('.js.map')) continue;
  await rename(`${dist}bundle/${f}`, `${dist}bundle-maps/${f}`);
  const js = `${dist}bundle/${f.slice(0, -'.map'.length)}`;
  const text = await readFile(js, 'utf8');
  await writeFile(
    js,
    text.replace(/\/\/# sourceMappingURL=(\S+)\s*$/, (_m, url) => `//# sourceMappingURL=../bundle-maps/${url}\n`),
  );
}

// The build's name: a hash of every chunk, which src/core/build-id.ts reads. What a build keeps of
// its own checks (the record tips it decoded) is trusted only by the build of the same name.
const hash = createHash('sha256');
for (const f of (await readdir(`${dist}bundle`)).filter((f) => f.endsWith('.js')).sort()) {
  hash
    .update(`${f}\0`)
    .update(await readFile(`${dist}bundle/${f}`))
    .update('\0');
}
await writeFile(`${dist}bundle/build-id`, `${hash.digest('hex').slice(0, 32)}\n`);

// The --help texts, rendered once by the parser just built (scripts/help-texts.mjs).
await import('./help-texts.mjs');

/** @param {string} message @returns {never} */
function fail(message) {
  throw new Error(`scripts/bundle.mjs: ${message}`);
}
