// Node's built-in modules that cost every verb's start to load but that a call may never use,
// loaded on first use: crypto (random names, hashes), zlib (loose objects) and util (colour).
// Loading node:crypto alone costs a verb's start about a quarter of what abcd's own code does.
import type * as Crypto from 'node:crypto';
import type * as Util from 'node:util';
import type * as Zlib from 'node:zlib';

let crypto: typeof Crypto | undefined;
let zlib: typeof Zlib | undefined;
let util: typeof Util | undefined;
const cryptoModule = () => (crypto ??= process.getBuiltinModule('node:crypto'));
const zlibModule = () => (zlib ??= process.getBuiltinModule('node:zlib'));
const utilModule = () => (util ??= process.getBuiltinModule('node:util'));

/**
 * Loads what writing git objects takes (hashing, deflating) now: for a verb that will write
 * records, at a moment it waits on git anyway, rather than after that wait.
 */
export function loadObjectWriting(): void {
  cryptoModule();
  zlibModule();
}

/** node:crypto's randomBytes. */
export function randomBytes(size: number): Buffer {
  return cryptoModule().randomBytes(size);
}

/** node:crypto's createHash. */
export function createHash(algorithm: string): Crypto.Hash {
  return cryptoModule().createHash(algorithm);
}

/** node:crypto's randomUUID. */
export function randomUUID(): string {
  return cryptoModule().randomUUID();
}

/** node:zlib's inflateSync. */
export function inflateSync(data: Buffer, options?: Zlib.ZlibOptions): Buffer {
  return zlibModule().inflateSync(data, options);
}

/** node:zlib's deflateSync. */
export function deflateSync(data: Buffer | string, options?: Zlib.ZlibOptions): Buffer {
  return zlibModule().deflateSync(data, options);
}

/** node:util's styleText. */
export const styleText: typeof Util.styleText = (format, text, options) => utilModule().styleText(format, text, options);
