// Bundles the compiled CLI (dist/cli/main.js) into dist/bundle/: one chunk for start-up
// (the parser and every command's declaration) and one per lazily imported verb, each
// carrying its own dependencies. Loading a few files instead of hundreds of small ESM
// modules is most of abcd's start-up cost (ADR 0011; figures in bench/).
import { rm } from 'node:fs/promises';
import { build } from 'rolldown';

const dist = new URL('../dist/', import.meta.url).pathname;
await rm(`${dist}bundle`, { recursive: true, force: true });
await build({
  input: { main: `${dist}cli/main.js` },
  platform: 'node',
  logLevel: 'warn',
  // Not minified: a --debug stack should still name abcd's functions.
  output: { dir: `${dist}bundle`, format: 'esm', chunkFileNames: '[name]-[hash].js' },
});
