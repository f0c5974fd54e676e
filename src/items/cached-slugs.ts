// The item slugs this clone already knows, for shell completion: the item files of main as
// last fetched (the copy land and items keep) and the local items of the cached claim records.
// Local only: completion runs on every Tab and must never wait on the network.
import { compareNatural } from '../core/natural-order.js';
import type { Git } from '../git/git.js';
import { parseItem } from '../records/item.js';
import { cachePrefix } from '../records/refs.js';
import { ITEM_SUFFIX, ITEMS_DIR } from './item-path.js';

export async function cachedSlugs(git: Git, remote: string): Promise<string[]> {
  const claims = `${cachePrefix(remote)}claims/local/item/`;
  const refs = await git.refs.tryList([`refs/abcd-land/${remote}/`, claims, `refs/remotes/${remote}/`]);
  const names = (refs ?? []).map((r) => r.ref);
  const slugs = new Set(names.filter((n) => n.startsWith(claims)).map((n) => n.slice(claims.length)));
  // main as land last fetched it, else the remote-tracking copy; never a speculation's stack.
  const main =
    names.find((n) => n.startsWith(`refs/abcd-land/${remote}/`) && !n.includes('/ahead/')) ??
    names.find((n) => n === `refs/remotes/${remote}/main`);
  if (main) {
    const files = await git.objects.lsTree(`${main}:${ITEMS_DIR}`);
    if (files.ok) for (const { path: f } of files.value) if (f.endsWith(ITEM_SUFFIX)) slugs.add(f.slice(0, -ITEM_SUFFIX.length));
  }
  // A name that is no slug the CLI accepts (a hostile ref, a stray file) is never offered.
  return [...slugs].filter(isSlug).sort(compareNatural);
}

function isSlug(s: string): boolean {
  try {
    return parseItem(s).source === 'local';
  } catch {
    // a single parse: a ref or file name that is no slug
    return false;
  }
}
