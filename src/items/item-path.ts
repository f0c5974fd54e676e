// Where an item's file lives, apart from item-file.ts: land needs the path on every landing,
// the YAML parser only when the file exists (item-file.ts loads it).
export const ITEMS_DIR = '.abcd/items';
export const ITEM_SUFFIX = '.md';

/** The item file's path in the repository. */
export function itemPath(slug: string): string {
  return `${ITEMS_DIR}/${slug}${ITEM_SUFFIX}`;
}
