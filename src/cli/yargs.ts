// yargs through one module so the build can bundle it into a single file (scripts/bundle-yargs.mjs):
// loading yargs's ~40 ESM files costs about twice what one bundled file does, on every `abcd`.
export { default } from 'yargs';
