// `abcd init --ci ... --vendor`: this very abcd, packed, committed under .abcd/vendor/, so the
// generated job installs it from the checkout with no network, no registry and no build. The
// package has no runtime dependencies (one bundle and its launcher), so the file is all npm needs.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { definedEnv, type Env } from '../core/deps.js';
import { UsageError } from '../core/refusals.js';
import { spawnProcess } from '../core/spawn.js';

export const VENDOR_DIR = '.abcd/vendor';

// npm pack of a bundle and a launcher takes a second or two; past this it is stuck.
const PACK_TIMEOUT_MS = 120_000;

/** The package root of the running abcd: two levels above src/setup and dist/bundle alike. */
export function abcdRoot(): string {
  return fileURLToPath(new URL('../../', import.meta.url));
}

/** Where the vendored tarball of `version` goes in the repository. */
export function vendoredPath(version: string): string {
  return `${VENDOR_DIR}/abcd-${version}.tgz`;
}

/** The running abcd's own package as npm pack makes it (without running its build scripts). */
export async function packRunningAbcd(env: Env): Promise<Buffer> {
  const root = abcdRoot();
  const dest = await mkdtemp(join(env.TMPDIR ?? tmpdir(), 'abcd-vendor-'));
  try {
    const r = await spawnProcess('npm', ['pack', root, '--ignore-scripts', '--json', '--pack-destination', dest], {
      cwd: dest,
      env: { ...definedEnv(env), npm_config_update_notifier: 'false', npm_config_fund: 'false' },
      group: true,
      timeoutMs: PACK_TIMEOUT_MS,
    });
    const packed = r.exitCode === 0 ? parsePack(r.stdout.toString()) : undefined;
    if (!packed) {
      const why = r.startError
        ? `npm could not start (${r.startError.code ?? r.startError.message})`
        : r.stderr.toString().trim().slice(-400);
      throw new UsageError(
        `--vendor packs the running abcd (${root}) with npm pack, which failed: ${why}. Nothing was written.`,
        'command',
        {
          command: 'npm pack',
        },
      );
    }
    return await readFile(join(dest, packed));
  } finally {
    await rm(dest, { recursive: true, force: true });
  }
}

function parsePack(stdout: string): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(stdout);
  } catch {
    return undefined; // a single parse: npm pack's JSON
  }
  const name: unknown = Array.isArray(v) ? (v[0] as { filename?: unknown } | null)?.filename : undefined;
  return typeof name === 'string' && /^[\w.@-]+\.tgz$/.test(name) ? name : undefined;
}
