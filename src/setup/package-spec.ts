// Which abcd a generated CI job installs: never a bare `npm install --global abcd` (that
// registry name belongs to an unrelated package). This package is not on the npm registry yet,
// so the job installs the tarball `abcd init --vendor` committed, or what ABCD_PACKAGE names.
import { readFile } from 'node:fs/promises';

/** This abcd's package name and version, from its package.json (two levels above src/setup and dist/bundle). */
export async function readPackage(): Promise<{ name: string; version: string }> {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

/**
 * The CI variable a team sets to install abcd (its own registry's spec, or a tarball's URL).
 * The generated CI files read it; abcd itself never does, so --help does not list it.
 */
export const PACKAGE_VARIABLE = 'ABCD_PACKAGE';
export const CI_ONLY_VARIABLES: readonly string[] = [PACKAGE_VARIABLE];
