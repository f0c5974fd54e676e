// Which repository this clone works on, as signed settings name it: the root commit of main's
// first-parent history (ADR 0067). It is content, not a label: a fresh clone works it out from
// main alone, and a generation signed for another repository names another commit. Main's
// history is only ever extended, so the answer never changes: it is kept under the git dir,
// per remote, and costs no process after the first read.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { unlessMissing } from '../../core/best-effort.js';
import type { Repo } from '../repo.js';
import { resolveMainBranch } from '../main-name.js';

type RepoParts = Pick<Repo, 'git' | 'store' | 'commonDir'>;

function cachePath(repo: RepoParts): string {
  return join(repo.commonDir, 'abcd', 'repository.json');
}

/**
 * Main's first-parent root commit, or undefined when the remote has no main branch yet (then
 * no settings generation can name this repository). May fetch main once, the first time.
 */
export async function repositoryRoot(repo: RepoParts): Promise<string | undefined> {
  const path = cachePath(repo);
  const known = await readKnown(path);
  const remote = repo.store.remote;
  if (known[remote]) return known[remote];
  const main = await resolveMainBranch(repo);
  const cacheRef = `refs/abcd-land/${remote}/${main}`;
  let root = await rootOf(repo, [cacheRef, `refs/remotes/${remote}/${main}`]);
  if (!root) {
    await repo.store.fetch([`+refs/heads/${main}:${cacheRef}`]);
    root = await rootOf(repo, [cacheRef]);
  }
  if (!root) return undefined;
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, JSON.stringify({ ...known, [remote]: root }));
  await rename(tmp, path);
  return root;
}

async function rootOf(repo: RepoParts, refs: string[]): Promise<string | undefined> {
  for (const ref of refs) {
    const r = await repo.git.history.tryRevList({ revs: [ref], firstParent: true, maxParents: 0 });
    const root = r.ok ? r.value.trim().split('\n')[0] : '';
    if (root) return root;
  }
  return undefined;
}

async function readKnown(path: string): Promise<Record<string, string>> {
  // Missing or torn: worked out again from main.
  const text = await readFile(path, 'utf8').catch(unlessMissing(undefined));
  let v: unknown;
  try {
    v = text === undefined ? undefined : JSON.parse(text);
  } catch {
    // a single parse: a torn file knows no root
  }
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'string' && /^[0-9a-f]{40,64}$/.test(x)));
  }
  return {};
}
