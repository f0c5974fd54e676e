// What an item source is (list, read, mark done): the contract lives in forges/item-source.ts,
// because a forge may supply a source of its own (GitHub's issues) and sits below items. Lanes
// and items import it from here, as the items domain's own word.
export type * from '../forges/item-source.js';
