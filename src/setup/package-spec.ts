// Which abcd a generated CI job installs: exactly the package and version that wrote the file,
// never a bare `npm install --global abcd` (that registry name belongs to an unrelated package,
// and an unpinned install would change under the workflow without anyone re-reading it).
import { readFile } from 'node:fs/promises';

/** `<name>@<version>` of this abcd, from its package.json (two levels above src/ci and dist/bundle). */
export async function readPackageSpec(): Promise<string> {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
  return `${pkg.name}@${pkg.version}`;
}

/**
 * The CI variable a team sets to install another abcd (its own registry's spec, or a tarball).
 * The generated CI files read it; abcd itself never does, so --help does not list it.
 */
export const PACKAGE_VARIABLE = 'ABCD_PACKAGE';
export const CI_ONLY_VARIABLES: readonly string[] = [PACKAGE_VARIABLE];

/**
 * The install line: the package spec in `variable` when the CI sets it (a team's own registry,
 * or a tarball made with `npm pack`), else this pinned spec. Quoted, so a spec is one argument.
 */
export function installCommand(spec: string, variable: string): string {
  return `npm install --global "\${${variable}:-${spec}}"`;
}
