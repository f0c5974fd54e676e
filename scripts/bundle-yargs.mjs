// Rewrites dist/cli/yargs.js as one bundled file holding yargs and its dependencies, so
// every abcd start-up reads one module instead of ~40 (measured in bench/: about 30 ms saved).
import { rename } from 'node:fs/promises';
import { build } from 'rolldown';

const target = new URL('../dist/cli/yargs.js', import.meta.url).pathname;
const tmp = `${target}.bundle.mjs`;
await build({
  input: target,
  platform: 'node',
  logLevel: 'warn',
  output: { file: tmp, format: 'esm', codeSplitting: false, minify: true },
});
await rename(tmp, target);
