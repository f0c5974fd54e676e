// The package registries a project's lock files name: what a land check that installs
// dependencies must reach through the sandbox's egress proxy (`land.network.allow`). `abcd init`
// suggests them. Each ecosystem's default registry, plus the hosts of the URLs its lock file
// resolves packages from (a private registry, a mirror).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unlessMissing } from '../core/best-effort.js';
import { parseAllowEntry, urlEndpoint } from '../machine/sandbox/network-allow.js';

interface LockKind {
  files: readonly string[];
  /** Where its packages come from unless the file names another. */
  defaults: readonly string[];
}

const LOCKS: readonly LockKind[] = [
  { files: ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml'], defaults: ['registry.npmjs.org:443'] },
  { files: ['yarn.lock'], defaults: ['registry.yarnpkg.com:443', 'registry.npmjs.org:443'] },
  { files: ['poetry.lock', 'Pipfile.lock', 'uv.lock', 'requirements.txt'], defaults: ['pypi.org:443', 'files.pythonhosted.org:443'] },
  { files: ['Cargo.lock'], defaults: ['index.crates.io:443', 'static.crates.io:443'] },
  { files: ['go.sum'], defaults: ['proxy.golang.org:443', 'sum.golang.org:443'] },
  { files: ['Gemfile.lock'], defaults: ['rubygems.org:443', 'index.rubygems.org:443'] },
];
// A lock file past this is read only this far: its URLs repeat the same few hosts.
const MAX_READ_BYTES = 8 << 20;
// A project that names more hosts than this is listing packages, not registries.
const MAX_HOSTS = 16;
const URL_IN_TEXT = /https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?\//g;

/** The lock files found at the repository's top and the registries they name (`host:port`, at most 16). */
export async function lockFileRegistries(root: string): Promise<{ files: string[]; allow: string[] }> {
  const files: string[] = [];
  const hosts = new Set<string>();
  for (const kind of LOCKS) {
    for (const f of kind.files) {
      const text = await readHead(join(root, f));
      if (text === undefined) continue;
      files.push(f);
      for (const d of kind.defaults) hosts.add(d);
      for (const m of text.matchAll(URL_IN_TEXT)) {
        const e = urlEndpoint(m[0]);
        if (e && parseAllowEntry(e) && !/^(localhost|127\.|\[::1\])/.test(e)) hosts.add(e);
      }
    }
  }
  return { files, allow: [...hosts].slice(0, MAX_HOSTS) };
}

async function readHead(path: string): Promise<string | undefined> {
  const buf = await readFile(path).catch(unlessMissing(undefined));
  return buf?.subarray(0, MAX_READ_BYTES).toString('utf8');
}
